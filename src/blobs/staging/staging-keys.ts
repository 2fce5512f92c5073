/**
 * Where resumable uploads keep their bytes until they complete (docs/uploads.md): under
 * `uploads/<uploadId>/…` in the bucket, beside `objects/` and never inside it, so that nothing
 * that cleans up blobs (the start-up sweep of temporary objects and stranded multipart uploads,
 * retention, the write journal's settling) ever takes an upload in progress.
 */
export const STAGING_ROOT = 'uploads';

export const isStagingKey = (key: string) => key.startsWith(`${STAGING_ROOT}/`);
