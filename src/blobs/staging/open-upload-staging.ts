import path from 'node:path';
import type { StorageConfig } from '../../config/config.ts';
import type { BlobStorage } from '../blob-storage.ts';
import { DiskBlobStorage } from '../disk-blob-storage.ts';
import { DiskUploadStaging } from './disk-upload-staging.ts';
import type { UploadStaging } from './upload-staging.ts';

/** Where unfinished uploads' bytes live on disk: beside the blob root (`storage`), never in it. */
export const DISK_UPLOADS_DIR = 'uploads';

/** The staging of STORAGE: `<DATA_DIR>/uploads`, or `uploads/` in the bucket (docs/uploads.md). */
export async function openUploadStaging(options: { dataDir: string; storage?: StorageConfig }, blobs: BlobStorage): Promise<UploadStaging> {
  if (options.storage?.kind === 's3' && options.storage.s3) {
    const { S3UploadStaging } = await import('./s3-upload-staging.ts');
    return new S3UploadStaging(options.storage.s3);
  }
  if (!(blobs instanceof DiskBlobStorage)) throw new Error('the disk upload staging goes with the disk blob storage');
  return new DiskUploadStaging(path.join(options.dataDir, DISK_UPLOADS_DIR), blobs);
}
