import type { Kysely, Selectable, Transaction } from 'kysely';
import { AppError, isAppError } from '../../errors/app-error.ts';
import { auditNotRecorded, channelNotFound } from '../../errors/common-errors.ts';
import type { FileRecord } from '../../model/files.ts';
import { newAuditId, newWriteId } from '../../model/ids.ts';
import { type ChannelQuotas, checkQuota, type Usage } from '../../model/quotas.ts';
import type { FileVersion } from '../../model/versions.ts';
import type { CommittedWrite, DeleteCommit, NewPendingWrite, WriteCommit } from '../../model/write-journal.ts';
import { inTransaction } from '../in-transaction.ts';
import { onPostgres } from '../on-postgres.ts';
import type { Database, FilesTable } from '../schema.ts';
import { type ChainedAppend, chainedAppend } from './audit-append-postgres.ts';
import { appendChained } from './audit-chain-records.ts';
import { advanceClock, countInFolder } from './channel-history.ts';
import { auditRow, fileRow, keptVersionRow, toFileVersion } from './file-catalog-rows.ts';
import { openCommit, recordWrite } from './folded-write-commit.ts';
import { channelQuotasIn, tenantUsageIn } from './quota-records.ts';

type Db = Kysely<Database>;
type Trx = Transaction<Database>;

/**
 * The commit points of the writes of live files (see FileCatalog.commitWrite). A writer stores the
 * new bytes under a fresh key first; here one transaction makes them the live record, so that a
 * failure anywhere before it changes nothing and a failure after it loses nothing. Each commit
 * can be retried: an earlier attempt whose answer was lost is recognised by what it wrote.
 */

export async function journalWrite(db: Db, write: NewPendingWrite): Promise<string> {
  const id = newWriteId();
  await db
    .insertInto('pending_writes')
    .values({
      id,
      channel_id: write.channelId,
      folder: write.folder,
      filename: write.filename,
      blob_key: write.blobKey,
      started_at: write.startedAt,
      abandoned_at: null,
      sha256: null,
      size: null,
      content_type: null,
    })
    .execute();
  return id;
}

export function commitWrite(db: Db, commit: WriteCommit): Promise<CommittedWrite> {
  return inTransaction(db, (trx) => (onPostgres(trx) ? commitFolded(trx, commit) : commitPortable(trx, commit)));
}

/** The commit as any engine runs it, a statement per row: SQLite's, in-process, where a statement costs no round trip. */
async function commitPortable(trx: Trx, commit: WriteCommit): Promise<CommittedWrite> {
  const { file } = commit;
  const live = await liveRow(trx, file.channelId, file.folder, file.filename);
  if (live?.blob_key === file.blobKey) {
    return { created: commit.replaces === null, kept: await keptVersion(trx, commit.keptVersionId), already: true };
  }
  // The journal entry is what a commit and the giving up of the same write race for: exactly one ends it.
  const ended = await trx
    .deleteFrom('pending_writes')
    .where('id', '=', commit.writeId)
    .where('abandoned_at', 'is', null)
    .executeTakeFirst();
  if (ended.numDeletedRows !== 1n) throw writeAbandoned();
  assertUnchanged(live, commit.replaces, file);
  const { seq, usage } = await advanceClock(
    trx,
    file.channelId,
    {
      files: live ? 0 : 1,
      bytes: file.size - (live ? Number(live.size) : 0),
      kept: live ? { files: 1, bytes: Number(live.size) } : undefined,
    },
    file.updatedAt,
  );
  // Read here, under the write lock: a quota set or lowered while the bytes streamed counts too.
  const quotas = commit.withinQuota ? await channelQuotasIn(trx, file.channelId) : undefined;
  if (quotas) checkChannelQuota(quotas, usage, file);
  let kept: FileVersion | undefined;
  if (live) {
    const row = keptVersionRow(commit.keptVersionId, live, { kind: 'replaced', at: file.updatedAt, untilSeq: seq, createdBy: null });
    await trx.insertInto('file_versions').values(row).execute();
    kept = toFileVersion(row);
  }
  await upsertLiveRow(trx, fileRow(file, seq));
  if (!live) await countInFolder(trx, file.channelId, file.folder, 1);
  if (commit.publicCopy) await queuePublicCopy(trx, file, file.updatedAt);
  await appendLast(trx, commit, quotas, file);
  return { created: !live, kept, already: false };
}

/**
 * The same commit on PostgreSQL in four round trips and the transaction's two, where the portable
 * one takes eleven (folded-write-commit.ts): the entry ended, the live record and the quotas read
 * in one statement; every row of the write in a second, which advances the channel's clock; the
 * audit append in two (audit-chain-records.ts). The rows locked by each write of the channel and
 * the tenant (their clock, their chain head) are held for three round trips after the clock's instead of seven.
 */
async function commitFolded(trx: Trx, commit: WriteCommit): Promise<CommittedWrite> {
  const { file } = commit;
  const opened = await openCommit(trx, { writeId: commit.writeId, ...file }, commit.withinQuota === true);
  const { live } = opened;
  // An attempt whose answer was lost committed this write; its commit ended the entry, which this one's end therefore missed.
  if (live?.blob_key === file.blobKey) {
    return { created: commit.replaces === null, kept: await keptVersion(trx, commit.keptVersionId), already: true };
  }
  if (!opened.ended) throw writeAbandoned();
  assertUnchanged(live, commit.replaces, file);
  if (commit.withinQuota && opened.quotas === undefined) throw channelNotFound(file.channelId);
  const audit = foldableAudit(commit);
  const { seq, usage, audited } = await recordWrite(trx, {
    file,
    live,
    keptVersionId: commit.keptVersionId,
    publicCopy: commit.publicCopy,
    audit,
  }).catch((error: unknown) => {
    // The statement that appends fails as an append does (appendChained): 503, nothing changed.
    throw audit && !isAppError(error) ? auditNotRecorded(error) : error;
  });
  if (opened.quotas) checkChannelQuota(opened.quotas, usage, file);
  await appendLast(trx, audited ? { ...commit, audit: undefined } : commit, opened.quotas, file);
  const kept =
    live &&
    toFileVersion(keptVersionRow(commit.keptVersionId, live, { kind: 'replaced', at: file.updatedAt, untilSeq: seq, createdBy: null }));
  return { created: !live, kept, already: false };
}

/**
 * The entry as CTEs of the statement that advances the clock, taken right after it: the clock and
 * the tenant's head are then both held for that one round trip and the commit. Not an entry of a
 * held operation's run, whose lease is renewed first (appendChained).
 */
function foldableAudit(commit: WriteCommit): ChainedAppend | undefined {
  if (!commit.audit || commit.audit.lease !== undefined) return undefined;
  return chainedAppend(auditRow(newAuditId(), commit.audit), 'clock');
}

/** Every write adds one record of its size: the new live file, or the version its bytes replace. */
const addingOne = (file: FileRecord) => ({ files: 1, bytes: file.size });

function checkChannelQuota(quotas: ChannelQuotas, usage: Usage, file: FileRecord): void {
  checkQuota('channel', quotas.channel, { files: usage.files - 1, bytes: usage.bytes - file.size }, addingOne(file));
}

/** The audit entry, then the tenant's quota: the sum is exact under the head, which every write of the tenant takes. */
async function appendLast(trx: Trx, commit: WriteCommit, quotas: ChannelQuotas | undefined, file: FileRecord): Promise<void> {
  // Last: the tenant's chain head is held from here to the commit, as briefly as can be.
  if (commit.audit) await appendChained(trx, commit.audit);
  if (quotas && (quotas.tenant.maxBytes !== null || quotas.tenant.maxFiles !== null)) {
    const used = await tenantUsageIn(trx, quotas.tenantId);
    checkQuota('tenant', quotas.tenant, { files: used.files - 1, bytes: used.bytes - file.size }, addingOne(file));
  }
}

export function commitDelete(db: Db, commit: DeleteCommit): Promise<{ kept: FileVersion; already: boolean }> {
  const { channelId, folder, filename } = commit;
  return inTransaction(db, async (trx) => {
    const live = await liveRow(trx, channelId, folder, filename);
    if (live?.blob_key !== commit.blobKey) {
      const earlier = await keptVersion(trx, commit.keptVersionId);
      if (earlier) return { kept: earlier, already: true };
      assertUnchanged(live, commit.blobKey, commit);
    }
    const size = Number(live!.size);
    // The live record becomes a kept one: the channel's usage (docs/quotas.md) does not change.
    const { seq } = await advanceClock(trx, channelId, { files: -1, bytes: -size, kept: { files: 1, bytes: size } }, commit.at);
    const row = keptVersionRow(commit.keptVersionId, live!, { kind: 'deleted', at: commit.at, untilSeq: seq, createdBy: commit.deletedBy });
    await trx.insertInto('file_versions').values(row).execute();
    await trx
      .deleteFrom('files')
      .where('channel_id', '=', channelId)
      .where('folder', '=', folder)
      .where('filename', '=', filename)
      .execute();
    await countInFolder(trx, channelId, folder, -1);
    if (commit.publicCopy) await queuePublicCopy(trx, commit, commit.at);
    if (commit.audit) await appendChained(trx, commit.audit);
    return { kept: toFileVersion(row), already: false };
  });
}

/** True when the entry was still open: it is marked given up, so no commit can end it any more. */
export async function abandonWrite(db: Db, id: string, at: number): Promise<boolean> {
  const marked = await db
    .updateTable('pending_writes')
    .set({ abandoned_at: at })
    .where('id', '=', id)
    .where('abandoned_at', 'is', null)
    .executeTakeFirst();
  return marked.numUpdatedRows === 1n;
}

/** The file's live record, inserted or replaced whole. */
export async function upsertLiveRow(trx: Trx, row: FilesTable): Promise<void> {
  await trx
    .insertInto('files')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['channel_id', 'folder', 'filename']).doUpdateSet({
        size: row.size,
        sha256: row.sha256,
        content_type: row.content_type,
        updated_at: row.updated_at,
        since_seq: row.since_seq,
        blob_key: row.blob_key,
      }),
    )
    .execute();
}

/** The file's public copy must follow the record this transaction writes (public-copies.ts). */
async function queuePublicCopy(trx: Trx, path: { channelId: string; folder: string; filename: string }, at: number): Promise<void> {
  await trx
    .insertInto('public_copies_due')
    .values({ channel_id: path.channelId, folder: path.folder, filename: path.filename, queued_at: at })
    .onConflict((oc) => oc.columns(['channel_id', 'folder', 'filename']).doUpdateSet({ queued_at: at }))
    .execute();
}

function liveRow(trx: Trx, channelId: string, folder: string, filename: string): Promise<Selectable<FilesTable> | undefined> {
  return trx
    .selectFrom('files')
    .selectAll()
    .where('channel_id', '=', channelId)
    .where('folder', '=', folder)
    .where('filename', '=', filename)
    .executeTakeFirst();
}

async function keptVersion(trx: Trx, id: string): Promise<FileVersion | undefined> {
  const row = await trx.selectFrom('file_versions').selectAll().where('id', '=', id).executeTakeFirst();
  return row && toFileVersion(row);
}

/**
 * The writer read the live record under the file's lock and nothing else may change it until the
 * lock is released: a record that moved means the lock did not hold, and the write stops there.
 */
function assertUnchanged(
  live: Selectable<FilesTable> | undefined,
  expected: string | null,
  path: { folder: string; filename: string },
): void {
  if ((live?.blob_key ?? null) === expected) return;
  throw new Error(`the record of ${path.folder}/${path.filename} changed under its lock; the write was not recorded`);
}

/** The entry was given up by whoever settles the journal (write-journal.ts): the bytes are gone or going. */
function writeAbandoned(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The write was given up before it could be recorded; nothing was changed, try again', {
    outcome: 'unchanged',
  });
}
