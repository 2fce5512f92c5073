import path from 'node:path';
import type { StorageConfig } from '../config/config.ts';
import type { BlobStorage } from './blob-storage.ts';
import { DiskBlobStorage } from './disk-blob-storage.ts';
import type { OpenedFileLocks } from './file-locks.ts';
import { LockFiles } from './lock-files.ts';
import type { StoreLogger } from '../store/database.ts';
import { PostgresLocks } from '../store/postgres-locks.ts';

/**
 * Blob bytes live in `<DATA_DIR>/storage`, beside the SQLite metadata, or in the S3 bucket of
 * STORAGE=s3; the server and the CLI open the same. The AWS SDK is loaded only for S3.
 */
export async function openBlobStorage(options: { dataDir: string; storage?: StorageConfig }): Promise<BlobStorage> {
  if (options.storage?.kind === 's3' && options.storage.s3) {
    const { S3BlobStorage } = await import('./s3-blob-storage.ts');
    return new S3BlobStorage(options.storage.s3);
  }
  return new DiskBlobStorage(path.join(options.dataDir, 'storage'));
}

/**
 * Per-file locks shared by every process that shares the metadata: advisory locks of the
 * PostgreSQL database (any number of instances and hosts), or lock files in DATA_DIR (one host).
 */
export function openFileLocks(options: { dataDir: string; databaseUrl?: string | undefined }, logger: StoreLogger): OpenedFileLocks {
  if (options.databaseUrl) return new PostgresLocks(options.databaseUrl, logger);
  return new LockFiles(path.join(options.dataDir, 'locks'));
}
