import path from 'node:path';
import type { StorageConfig } from '../config/config.ts';
import type { BlobStorage } from './blob-storage.ts';
import { DiskBlobStorage } from './disk-blob-storage.ts';

/** Where blob bytes live under DATA_DIR with STORAGE=disk. */
export const DISK_STORAGE_DIR = 'storage';

/**
 * Blob bytes live in `<DATA_DIR>/storage`, beside the SQLite metadata, or in the S3 bucket of
 * STORAGE=s3; the server and the CLI open the same. The AWS SDK is loaded only for S3.
 */
export async function openBlobStorage(options: { dataDir: string; storage?: StorageConfig }): Promise<BlobStorage> {
  if (options.storage?.kind === 's3' && options.storage.s3) {
    const { S3BlobStorage } = await import('./s3-blob-storage.ts');
    return new S3BlobStorage(options.storage.s3);
  }
  return new DiskBlobStorage(path.join(options.dataDir, DISK_STORAGE_DIR));
}
