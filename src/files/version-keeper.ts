import type { BlobStorage } from '../storage/blob-storage.ts';
import type { FileCatalog, FileRecord, FileVersion } from '../store/file-catalog-types.ts';
import { liveKey, versionKey } from './blob-layout.ts';

/**
 * Keeps the live bytes of a file as a version before they are replaced or deleted. A hard link
 * (or server-side copy) costs no copy: the replacement arrives by rename, as a new file, so the
 * link goes on holding the old bytes.
 */
export async function keepLiveVersion(
  blobs: BlobStorage,
  catalog: FileCatalog,
  record: FileRecord,
  kind: 'replaced' | 'deleted',
  now: number,
  createdBy: string | null = null,
): Promise<FileVersion> {
  const key = versionKey(record.channelId);
  await blobs.link(liveKey(record.channelId, record.folder, record.filename), key);
  return catalog.addVersion({
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
  });
}
