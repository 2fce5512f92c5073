import type { BlobStorage, PutOptions, StoredBlob } from '../storage/blob-storage.ts';
import type { FileCatalog, FileRecord, FileVersion } from '../store/file-catalog-types.ts';
import { liveKey } from './blob-layout.ts';
import type { FilePath } from './file-path.ts';
import { keepLiveVersion } from './version-keeper.ts';

export interface LiveWriteDeps {
  blobs: BlobStorage;
  catalog: FileCatalog;
  now: () => number;
}

export interface LiveWriteOutcome {
  file: FileRecord;
  created: boolean;
  /** The version that keeps the replaced bytes, when something was replaced. */
  keptVersionId: string | null;
}

/**
 * The one way live bytes are replaced (uploads and restores). Once the new bytes are durable and
 * just before they take the live name: the current bytes are kept as a version and the write is
 * journalled; after the record is updated the journal entry goes. The caller holds the file's lock
 * and has read the live record (`current`, undefined when there is none) under it.
 */
export async function replaceKnownLiveFile(
  deps: LiveWriteDeps,
  current: FileRecord | undefined,
  channelId: string,
  path: FilePath,
  contentType: string,
  write: (beforeCommit: NonNullable<PutOptions['beforeCommit']>) => Promise<StoredBlob>,
): Promise<LiveWriteOutcome> {
  const { catalog } = deps;
  let keptVersionId: string | null = null;
  let writeId: string | undefined;
  const written = await write(async (newBytes) => {
    if (current) keptVersionId = (await keepLiveVersion(deps.blobs, catalog, current, 'replaced', deps.now())).id;
    writeId = await catalog.beginWrite({
      channelId,
      ...path,
      sha256: newBytes.sha256,
      size: newBytes.size,
      contentType,
      startedAt: deps.now(),
    });
  });
  const file: FileRecord = { channelId, ...path, size: written.size, sha256: written.sha256, contentType, updatedAt: deps.now() };
  const outcome = await catalog.putFile(file);
  if (writeId !== undefined) await catalog.endWrite(writeId);
  return { file, created: outcome === 'created', keptVersionId };
}

/**
 * Deletes a live file, its bytes kept as a 'deleted' version first (recording who deleted it,
 * `deletedBy`, for the deleted-files listing); journalled like a replacement.
 */
export async function removeLiveFile(deps: LiveWriteDeps, current: FileRecord, deletedBy: string | null): Promise<FileVersion> {
  const { blobs, catalog } = deps;
  const version = await keepLiveVersion(blobs, catalog, current, 'deleted', deps.now(), deletedBy);
  const { channelId, folder, filename } = current;
  const writeId = await catalog.beginWrite({
    channelId,
    folder,
    filename,
    sha256: null,
    size: null,
    contentType: null,
    startedAt: deps.now(),
  });
  await catalog.deleteFile(channelId, folder, filename, deps.now());
  await blobs.delete(liveKey(channelId, folder, filename));
  await catalog.endWrite(writeId);
  return version;
}
