import type { BlobStorage } from '../storage/blob-storage.ts';
import type { FileRecord, NewFileVersion } from '../store/file-catalog-types.ts';
import { liveKey, versionKey } from './blob-layout.ts';

/**
 * Keeps the live bytes of a file before they are replaced or deleted: links them under a version
 * key and describes the version, which the write's journal entry records (FileCatalog.beginWrite).
 * A hard link (or server-side copy) costs no copy: the replacement arrives by rename, as a new
 * file, so the link goes on holding the old bytes.
 */
export async function linkLiveVersion(
  blobs: BlobStorage,
  record: FileRecord,
  kind: 'replaced' | 'deleted',
  now: number,
  createdBy: string | null = null,
): Promise<NewFileVersion> {
  const key = versionKey(record.channelId);
  await blobs.link(liveKey(record.channelId, record.folder, record.filename), key);
  return {
    channelId: record.channelId,
    folder: record.folder,
    filename: record.filename,
    kind,
    backupTimestamp: null,
    blobKey: key,
    size: record.size,
    sha256: record.sha256,
    contentType: record.contentType,
    createdAt: now,
    // Its span in the channel's history: from here until the write that replaces it commits.
    sinceSeq: record.sinceSeq ?? null,
    createdBy,
  };
}
