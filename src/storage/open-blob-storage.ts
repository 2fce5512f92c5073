import path from 'node:path';
import type { BlobStorage } from './blob-storage.ts';
import { DiskBlobStorage } from './disk-blob-storage.ts';

/** Blob bytes live in `<DATA_DIR>/storage`, beside the SQLite metadata; the server and the CLI open the same. */
export function openBlobStorage(options: { dataDir: string }): BlobStorage {
  return new DiskBlobStorage(path.join(options.dataDir, 'storage'));
}
