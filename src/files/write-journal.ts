import type { BlobStorage } from '../blobs/blob-storage.ts';
import { sha256OfStream } from '../blobs/sha256-meter.ts';
import type { FileLocks } from '../locks/file-locks.ts';
import type { Logger } from '../logging/logger.ts';
import type { LiveFiles } from '../model/files.ts';
import type { PendingWrite, WriteJournal } from '../model/write-journal.ts';
import { fileLockKey, legacyLiveKey } from './blob-layout.ts';

/** What settling the journal reads and changes. */
export interface JournalDeps {
  blobs: BlobStorage;
  catalog: LiveFiles & WriteJournal;
  locks: FileLocks;
  logger: Pick<Logger, 'warn'>;
  now?: () => number;
}

/**
 * Settles the journal entries of writes that will never be recorded, started before `startedBefore`:
 * a crash between storing a write's bytes and recording them leaves bytes that no record names,
 * which go. Each entry is settled under its file's lock, so a write still in flight (in this
 * process, another one on the same DATA_DIR, or another instance) is waited for, never mistaken
 * for one a crash interrupted; its commit and the giving up race for the entry, and only one
 * wins (FileCatalog.abandonWrite). Returns how many entries were settled.
 */
export async function settleJournal(deps: JournalDeps, startedBefore = Number.POSITIVE_INFINITY): Promise<number> {
  const { catalog, locks } = deps;
  const now = deps.now ?? Date.now;
  let settled = 0;
  for (const write of await catalog.pendingWrites()) {
    if (write.startedAt >= startedBefore) continue;
    const done = await locks.runExclusive(fileLockKey(write.channelId, write.folder, write.filename), async () => {
      if (write.blobKey === null) return settleLegacyWrite(deps, write, now());
      // Ended meanwhile (its write was recorded), or given up already and only its bytes are left.
      if (write.abandonedAt === null && !(await catalog.abandonWrite(write.id, now()))) return false;
      await deps.blobs.delete(write.blobKey);
      await catalog.endWrite(write.id);
      return true;
    });
    if (done) settled++;
  }
  return settled;
}

/**
 * An entry of a release before migration 011, which replaced the bytes at the file's own path
 * (legacyLiveKey) and then updated the record: the record is made to match what that path holds
 * (hashed, so it is the truth whichever side of the rename the crash fell), or removed with it. It
 * is recorded again even when it already matches, which ends the span the interrupted write had
 * opened for the version it kept.
 */
async function settleLegacyWrite(deps: JournalDeps, write: PendingWrite, now: number): Promise<boolean> {
  const { blobs, catalog } = deps;
  const { channelId, folder, filename } = write;
  const key = legacyLiveKey(channelId, folder, filename);
  const record = await catalog.getFile(channelId, folder, filename);
  // Written since by this release (a CLI before the server's first start): the entry is moot.
  if (record !== undefined && record.blobKey !== key) {
    await catalog.endWrite(write.id);
    return true;
  }
  const body = write.legacy?.sha256 === null ? undefined : await blobs.get(key);
  const live = body === undefined ? undefined : await sha256OfStream(body);
  if (live === undefined) {
    // An interrupted delete (its version is kept, so finishing it loses nothing), or bytes gone.
    if (record) await catalog.deleteFile(channelId, folder, filename, now);
    await blobs.delete(key);
  } else {
    const contentType =
      live.sha256 === write.legacy?.sha256
        ? (write.legacy.contentType ?? 'application/octet-stream')
        : (record?.contentType ?? 'application/octet-stream');
    await catalog.putFile({ channelId, folder, filename, size: live.size, sha256: live.sha256, contentType, updatedAt: now, blobKey: key });
  }
  await catalog.endWrite(write.id);
  return true;
}

/**
 * What the server does before its first write: temporary files of writes a crash interrupted go,
 * and the whole journal is settled.
 */
export async function recoverInterruptedWrites(deps: JournalDeps): Promise<void> {
  const leftovers = await deps.blobs.removeLeftovers();
  if (leftovers > 0) deps.logger.warn({ leftovers }, 'removed temporary files left by an interrupted write');
  const settled = await settleJournal(deps);
  if (settled > 0) deps.logger.warn({ settled }, 'removed the bytes of writes interrupted before they were recorded');
}
