import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BlobStorage, StoredBlob } from '../blobs/blob-storage.ts';
import { isAppError } from '../errors/app-error.ts';
import { writeUnconfirmed, writeUndone } from '../errors/common-errors.ts';
import type { NewAuditEvent } from '../model/audit.ts';
import type { FileRecord, LiveFiles } from '../model/files.ts';
import { newVersionId } from '../model/ids.ts';
import type { FileVersion } from '../model/versions.ts';
import type { CommittedWrite, WriteJournal } from '../model/write-journal.ts';
import { newBlobKey } from './blob-layout.ts';
import type { FilePath } from './file-path.ts';
import type { PublicCopies } from './public-copies.ts';

export interface LiveWriteDeps {
  blobs: BlobStorage;
  catalog: LiveFiles & WriteJournal;
  now: () => number;
  /** With S3_PUBLIC_BASE_URL: the public copies every write brings in line after its commit. */
  publicCopies?: PublicCopies | undefined;
  /** COMMIT_RETRY unless given. */
  commitRetry?: CommitRetry | undefined;
}

export interface LiveWriteOutcome {
  file: FileRecord;
  created: boolean;
  /** The version that keeps the replaced bytes, when something was replaced. */
  keptVersionId: string | null;
}

/**
 * A commit that fails with an outage is tried again after these pauses (ms) before the write is
 * undone: long enough to ride out a dropped connection or a failover's first seconds, short
 * enough that the file's lock, held meanwhile, is not held for long. No retry starts once this
 * much time has passed since the first attempt: a SQLite database busy with another process was
 * already waited for (5 s) inside the attempt that failed.
 */
export const COMMIT_RETRY: CommitRetry = { delaysMs: [100, 400, 1500], windowMs: 2500 };

/** When a commit the database failed is tried again (COMMIT_RETRY); tests of the retries give shorter pauses. */
export interface CommitRetry {
  delaysMs: readonly number[];
  windowMs: number;
}

/**
 * The one way live bytes are replaced (uploads and restores). The new bytes are stored under a
 * fresh key that nothing names (journalled first, so that bytes a crash strands are found and
 * removed); then one transaction records them (FileCatalog.commitWrite), which is the write's
 * commit point: before it nothing a reader sees has changed, after it the record names exactly
 * the stored bytes and the replaced ones are a version. A commit the database fails is retried,
 * and otherwise undone before the answer: the error then means nothing changed. The caller holds
 * the file's lock and read the live record (`current`, undefined when there is none) under it.
 * `entryOf` gives the write's audit entry once its bytes are known, which the commit appends in
 * its transaction: the write and its entry commit together, once, or neither does.
 */
export async function replaceLiveFile(
  deps: LiveWriteDeps,
  current: FileRecord | undefined,
  channelId: string,
  path: FilePath,
  contentType: string,
  store: (blobKey: string) => Promise<StoredBlob>,
  entryOf?: (file: FileRecord, replacedVersionId: string | null) => NewAuditEvent,
  options: { withinQuota?: boolean } = {},
): Promise<LiveWriteOutcome> {
  const { catalog } = deps;
  const blobKey = newBlobKey(channelId);
  const writeId = await catalog.journalWrite({ channelId, ...path, blobKey, startedAt: deps.now() });
  let stored: StoredBlob;
  try {
    stored = await store(blobKey);
  } catch (error) {
    // The storage's own error is the answer; whatever it left under the key goes with the entry.
    await undo(deps, writeId, blobKey).catch(() => undefined);
    throw error;
  }
  const file: FileRecord = { channelId, ...path, size: stored.size, sha256: stored.sha256, contentType, updatedAt: deps.now(), blobKey };
  const keptVersionId = newVersionId();
  const publicCopy = deps.publicCopies !== undefined;
  // Built once: every attempt of the commit appends the same entry, and at most one commits. The
  // entry may name the version the replaced bytes become (an upload's entry does: docs/events.md).
  const audit = entryOf?.(file, current === undefined ? null : keptVersionId);
  const commit = () =>
    catalog.commitWrite({
      file,
      writeId,
      replaces: current?.blobKey ?? null,
      keptVersionId,
      publicCopy,
      audit,
      withinQuota: options.withinQuota,
    });
  const committed: CommittedWrite = await untilRecorded(
    commit,
    async (failure) => {
      // Not recorded as far as this writer knows. Giving the entry up decides it: once given up, no
      // commit can end it, so the bytes can go; if it was ended already, an attempt whose answer was
      // lost recorded the write (the commit says so when asked again) or a settlement gave it up.
      const undone = await undo(deps, writeId, blobKey).catch(() => 'unknown' as const);
      if (undone === 'undone') throw isOutage(failure) ? writeUndone(failure) : failure;
      if (undone === 'unknown') throw writeUnconfirmed(failure);
      try {
        return await commit();
      } catch (error) {
        throw isOutage(error) ? writeUnconfirmed(error) : error;
      }
    },
    deps.commitRetry,
  );
  await deps.publicCopies?.follow(file);
  return { file, created: committed.created, keptVersionId: committed.kept?.id ?? null };
}

/**
 * Deletes a live file: one transaction (FileCatalog.commitDelete) moves its record's bytes to a
 * 'deleted' version, recording who deleted it (`deletedBy`, for the deleted-files listing). No
 * byte is moved or removed, so there is nothing to undo.
 */
export async function removeLiveFile(
  deps: LiveWriteDeps,
  current: FileRecord,
  deletedBy: string | null,
  entryOf?: (keptVersionId: string) => NewAuditEvent,
): Promise<FileVersion> {
  const { catalog } = deps;
  const keptVersionId = newVersionId();
  const at = deps.now();
  const { channelId, folder, filename, blobKey } = current;
  const publicCopy = deps.publicCopies !== undefined;
  const audit = entryOf?.(keptVersionId);
  const commit = () => catalog.commitDelete({ channelId, folder, filename, blobKey, keptVersionId, deletedBy, at, publicCopy, audit });
  const { kept } = await untilRecorded(
    commit,
    async (failure) => {
      if (!isOutage(failure)) throw failure;
      // The record tells whether an attempt whose answer was lost deleted the file.
      const record = await catalog.getFile(current.channelId, current.folder, current.filename).catch(() => null);
      if (record?.blobKey === current.blobKey) throw writeUndone(failure);
      if (record === null) throw writeUnconfirmed(failure);
      try {
        return await commit();
      } catch (error) {
        throw isOutage(error) ? writeUnconfirmed(error) : error;
      }
    },
    deps.commitRetry,
  );
  await deps.publicCopies?.follow(current);
  return kept;
}

/**
 * Gives a write up: 'undone' once nothing can record its bytes any more, 'ended' when its journal
 * entry was ended already (committed, or given up elsewhere). A database that does not answer
 * rejects, and the entry stays for write-journal.ts to settle. Removing the given-up bytes is
 * housekeeping: what fails of it is left to write-journal.ts too, which finds the entry given up.
 */
async function undo(deps: LiveWriteDeps, writeId: string, blobKey: string): Promise<'undone' | 'ended'> {
  if (!(await deps.catalog.abandonWrite(writeId, deps.now()))) return 'ended';
  try {
    await deps.blobs.delete(blobKey);
    await deps.catalog.endWrite(writeId);
  } catch {
    // Left for the settlement, as said above.
  }
  return 'undone';
}

/**
 * Runs `commit` until it answers, retrying outages (COMMIT_RETRY); a failure that
 * stays, or any other (a full disk, a lost race, a broken invariant) at once, goes to `otherwise`.
 */
async function untilRecorded<T>(
  commit: () => Promise<T>,
  otherwise: (failure: unknown) => Promise<T>,
  retry: CommitRetry = COMMIT_RETRY,
): Promise<T> {
  let failure: unknown;
  const started = performance.now();
  for (const delay of [0, ...retry.delaysMs]) {
    if (delay > 0) {
      if (performance.now() - started > retry.windowMs) break;
      await sleep(delay);
    }
    try {
      return await commit();
    } catch (error) {
      failure = error;
      if (!isOutage(error)) break;
    }
  }
  return otherwise(failure);
}

/** The database could not be reached or was busy (the undone and unconfirmed answers carry an outcome: final). */
const isOutage = (error: unknown) => isAppError(error) && error.code === 'SERVICE_UNAVAILABLE' && error.extra?.outcome === undefined;
