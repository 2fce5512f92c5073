import path from 'node:path';
import type { BlobStorage } from './blob-storage.ts';
import { DiskBlobStorage } from './disk-blob-storage.ts';
import type { FileLocks } from './file-locks.ts';
import { LockFiles } from './lock-files.ts';

/** Blob bytes live in `<DATA_DIR>/storage`, beside the SQLite metadata; the server and the CLI open the same. */
export function openBlobStorage(options: { dataDir: string }): BlobStorage {
  return new DiskBlobStorage(path.join(options.dataDir, 'storage'));
}

/** Per-file locks shared by every process on this DATA_DIR (server and CLI). */
export function openFileLocks(options: { dataDir: string }): FileLocks {
  return new LockFiles(path.join(options.dataDir, 'locks'));
}
