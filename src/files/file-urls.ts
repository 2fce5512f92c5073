import type { BlobStorage } from '../blobs/blob-storage.ts';
import type { FilesConfig, StorageConfig } from '../config/config.ts';
import type { FileRecord } from '../model/files.ts';
import { downloadDisposition } from './download-disposition.ts';
import { publicCopyKey } from './public-copies.ts';
import type { LinkSigner } from './signed-links.ts';

/** The URL a restore answers: where the restored file can be downloaded. */
export type FileUrls = (file: FileRecord) => Promise<string>;

/** The path of a file's GET on this service, each segment percent-encoded (so the URL is ASCII). */
function fileUrlPath(channelId: string, folder: string, filename: string): string {
  return `/api/channels/${encodeURIComponent(channelId)}/folders/${encodeURIComponent(folder)}/files/${encodeURIComponent(filename)}`;
}

export interface FileUrlOptions {
  publicBaseUrl: string;
  files: Pick<FilesConfig, 'urlSigning' | 'urlTtlSeconds'>;
  storage: StorageConfig;
  blobs: Pick<BlobStorage, 'downloadUrl'>;
  linkSigner: LinkSigner | undefined;
}

/**
 * Which URL, in this order:
 * 1. FILE_URL_SIGNING on a backend that can sign (S3): a presigned GET of the object, valid for
 *    FILE_URL_TTL — the bytes never pass through the service, and the link expires as asked
 *    even when S3_PUBLIC_BASE_URL is set too.
 * 2. S3_PUBLIC_BASE_URL: the public URL (a CDN or public bucket in front of the store) of the
 *    file's public copy, at a key that names the file (public-copies.ts).
 * 3. The service's own file URL, signed with FILE_URL_SECRET when FILE_URL_SIGNING is on (disk).
 */
export function createFileUrls({ publicBaseUrl, files, storage, blobs, linkSigner }: FileUrlOptions): FileUrls {
  const presign = blobs.downloadUrl?.bind(blobs);
  if (files.urlSigning && presign) {
    return (file) =>
      presign(file.blobKey, {
        ttlSeconds: files.urlTtlSeconds,
        contentType: file.contentType,
        contentDisposition: downloadDisposition(file.filename, file.contentType),
      });
  }
  const objectBase = storage.s3?.publicBaseUrl;
  if (objectBase !== undefined) {
    return async (file) => `${objectBase}/${publicCopyKey(file).split('/').map(encodeURIComponent).join('/')}`;
  }
  return async (file) => {
    const urlPath = fileUrlPath(file.channelId, file.folder, file.filename);
    return `${publicBaseUrl}${urlPath}${linkSigner ? `?${linkSigner.sign(urlPath, Date.now())}` : ''}`;
  };
}
