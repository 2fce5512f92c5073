import type { BlobStorage, PutOptions, StoredBlob } from '../storage/blob-storage.ts';
import type { FileCatalog, FileRecord, FileVersion } from '../store/file-catalog-types.ts';
import { liveKey } from './blob-layout.ts';
import type { FilePath } from './file-path.ts';
import { linkLiveVersion } from './version-keeper.ts';

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
 * journalled, in one transaction; the record's update removes the journal entry in its own. The
 * caller holds the file's lock and has read the live record (`current`, undefined when there is
 * none) under it.
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
    const keeps = current ? await linkLiveVersion(deps.blobs, current, 'replaced', deps.now()) : undefined;
    const begun = await catalog.beginWrite(
      { channelId, ...path, sha256: newBytes.sha256, size: newBytes.size, contentType, startedAt: deps.now() },
      keeps,
    );
    writeId = begun.writeId;
    keptVersionId = begun.kept?.id ?? null;
  });
  const file: FileRecord = { channelId, ...path, size: written.size, sha256: written.sha256, contentType, updatedAt: deps.now() };
  const outcome = await catalog.putFile(file, writeId);
  return { file, created: outcome === 'created', keptVersionId };
}

/**
 * Deletes a live file, its bytes kept as a 'deleted' version first (recording who deleted it,
 * `deletedBy`, for the deleted-files listing); journalled like a replacement.
 */
export async function removeLiveFile(deps: LiveWriteDeps, current: FileRecord, deletedBy: string | null): Promise<FileVersion> {
  const { blobs, catalog } = deps;
  const keeps = await linkLiveVersion(blobs, current, 'deleted', deps.now(), deletedBy);
  const { channelId, folder, filename } = current;
  const { writeId, kept } = await catalog.beginWrite(
    { channelId, folder, filename, sha256: null, size: null, contentType: null, startedAt: deps.now() },
    keeps,
  );
  await catalog.deleteFile(channelId, folder, filename, deps.now());
  // The journal entry outlives the record until the live bytes are gone too: a crash in between
  // is finished at start-up (write-journal.ts).
  await blobs.delete(liveKey(channelId, folder, filename));
  await catalog.endWrite(writeId);
  return kept!;
}
