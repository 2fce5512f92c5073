import { type Kysely, type RawBuilder, type Selectable, sql, type Transaction } from 'kysely';
import type { BackupRecord } from '../../model/backups.ts';
import type { FileAtSeq } from '../../model/history.ts';
import type { Usage } from '../../model/quotas.ts';
import { BACKUP_ENTRY_PREFIX, backupEntryId, backupSortKeyOfId } from '../../model/version-ids.ts';
import type { FileVersion } from '../../model/versions.ts';
import type { BackupsTable, Database, FileVersionsTable } from '../schema.ts';
import { toBackupRecord, toFileVersion } from './file-catalog-rows.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * A channel's history (migration 005). Every write of a live file advances the channel's clock
 * and stamps the new bytes with it (files.since_seq); the bytes it replaces or deletes, already
 * kept as a version, get the span during which they were live (since_seq, until_seq). A backup
 * is one clock value: the file's state at it is the live record if written at or before it, else
 * the version whose span holds it. Nothing is copied or written per file when a backup is taken.
 */

/**
 * Advances the channel's clock inside the write's transaction and records when (`at`, the write's
 * time in epoch ms) in clock_ticks; returns the new value. Tick times never go back: a write whose
 * clock ran behind the previous one's is ticked at the previous time, so that "the newest seq
 * ticked at or before T" names one state. Two statements, whatever the channel holds: the clock
 * row's upsert (which also carries the newest tick's time, tick_at) and the tick itself, so the
 * row lock that orders a channel's writes is held for as few round trips as possible.
 */
export async function advanceClock(
  trx: Transaction<Database>,
  channelId: string,
  delta: { files: number; bytes: number; kept?: Usage },
  at: number,
): Promise<{ seq: number; usage: Usage }> {
  // On a conflict the row is re-read when a concurrent writer held it (PostgreSQL re-evaluates the
  // SET on the newest row version), so seq and tick_at always build on the previous write's.
  const row = await trx
    .insertInto('channel_clocks')
    .values({
      channel_id: channelId,
      seq: 1,
      files: delta.files,
      bytes: delta.bytes,
      kept_files: delta.kept?.files ?? 0,
      kept_bytes: delta.kept?.bytes ?? 0,
      retained_from_seq: 0,
      retained_from_at: null,
      tick_at: at,
    })
    .onConflict((oc) =>
      oc.column('channel_id').doUpdateSet((eb) => ({
        seq: eb('channel_clocks.seq', '+', 1),
        files: eb('channel_clocks.files', '+', delta.files),
        bytes: eb('channel_clocks.bytes', '+', delta.bytes),
        ...(delta.kept === undefined
          ? {}
          : {
              kept_files: eb('channel_clocks.kept_files', '+', delta.kept.files),
              kept_bytes: eb('channel_clocks.kept_bytes', '+', delta.kept.bytes),
            }),
        tick_at: sql<number>`case when coalesce(channel_clocks.tick_at, 0) > ${at} then channel_clocks.tick_at else ${at} end`,
      })),
    )
    .returning(['seq', 'tick_at', 'files', 'bytes', 'kept_files', 'kept_bytes'])
    .executeTakeFirstOrThrow();
  const seq = Number(row.seq);
  // The channel's usage after this change, records live and kept (docs/quotas.md): read here for free.
  const usage = { files: Number(row.files) + Number(row.kept_files), bytes: Number(row.bytes) + Number(row.kept_bytes) };
  // A channel's first write: its empty state before it holds from the beginning (migration 006
  // ticked every channel that existed then, so this never claims a past it does not know; the
  // clock row is created by this function only, so seq 1 is the channel's first write).
  if (seq === 1)
    await trx
      .insertInto('clock_ticks')
      .values({ channel_id: channelId, seq: 0, at: 0 })
      .onConflict((oc) => oc.doNothing())
      .execute();
  await trx
    .insertInto('clock_ticks')
    .values({ channel_id: channelId, seq, at: Number(row.tick_at) })
    .execute();
  return { seq, usage };
}

/**
 * A live file added to (+1) or gone from (-1) a folder, inside the write's transaction, as the
 * channel's count is kept beside its clock. The folder's row goes with its last file.
 */
export async function countInFolder(trx: Transaction<Database>, channelId: string, folder: string, delta: 1 | -1): Promise<void> {
  await trx
    .insertInto('folder_counts')
    .values({ channel_id: channelId, folder, files: delta })
    .onConflict((oc) => oc.columns(['channel_id', 'folder']).doUpdateSet((eb) => ({ files: eb('folder_counts.files', '+', delta) })))
    .execute();
  if (delta < 0) {
    await trx
      .deleteFrom('folder_counts')
      .where('channel_id', '=', channelId)
      .where('folder', '=', folder)
      .where('files', '<=', 0)
      .execute();
  }
}

export interface ChannelClock {
  seq: number;
  files: number;
  bytes: number;
}

/** The channel's clock row as stored; undefined before its first write. */
export function clockRow(db: Db, channelId: string) {
  return db.selectFrom('channel_clocks').selectAll().where('channel_id', '=', channelId).executeTakeFirst();
}

export async function readClock(db: Db, channelId: string): Promise<ChannelClock> {
  const row = await clockRow(db, channelId);
  return row ? { seq: Number(row.seq), files: Number(row.files), bytes: Number(row.bytes) } : { seq: 0, files: 0, bytes: 0 };
}

/** The channel's backup of that timestamp, if it has one. */
export async function readBackup(db: Db, channelId: string, timestamp: string): Promise<BackupRecord | undefined> {
  const row = await db
    .selectFrom('backups')
    .selectAll()
    .where('channel_id', '=', channelId)
    .where('timestamp', '=', timestamp)
    .executeTakeFirst();
  return row && toBackupRecord(row);
}

/** The live bytes of a file ended at `seq`: the version that keeps them (written just before) gets its span's end. */
export async function endLiveSpan(
  trx: Transaction<Database>,
  channelId: string,
  folder: string,
  filename: string,
  seq: number,
): Promise<void> {
  await trx
    .updateTable('file_versions')
    .set({ until_seq: seq })
    .where('channel_id', '=', channelId)
    .where('folder', '=', folder)
    .where('filename', '=', filename)
    .where('since_seq', 'is not', null)
    .where('until_seq', 'is', null)
    .execute();
}

/** The kept rows (file_versions) of one file, for a query to narrow down. */
export function keptRowsOf(db: Db, channelId: string, folder: string, filename: string) {
  return db
    .selectFrom('file_versions')
    .selectAll()
    .where('channel_id', '=', channelId)
    .where('folder', '=', folder)
    .where('filename', '=', filename);
}

/**
 * The file as it was at `seq`: the live record when its bytes were written at or before it, else
 * the replaced or deleted version live then; undefined when the file did not exist then.
 */
export async function fileAtSeq(db: Db, channelId: string, seq: number, folder: string, filename: string): Promise<FileAtSeq | undefined> {
  const live = await db
    .selectFrom('files')
    .select(['size', 'sha256', 'content_type'])
    .where('channel_id', '=', channelId)
    .where('folder', '=', folder)
    .where('filename', '=', filename)
    .where('since_seq', '<=', seq)
    .executeTakeFirst();
  if (live) return { live: { size: Number(live.size), sha256: live.sha256, contentType: live.content_type } };
  // The file's spans follow each other: the one live at `seq` is the newest to start at or before
  // it, if it had not ended by then (else the file did not exist at `seq`). One seek of
  // file_versions_span_idx, however many versions the file has. Of two spans a crash left
  // overlapping, the later start is the bytes that were live.
  const kept = await keptRowsOf(db, channelId, folder, filename)
    .where('since_seq', '<=', seq)
    .orderBy('since_seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return kept && kept.until_seq !== null && Number(kept.until_seq) > seq ? { kept: toFileVersion(kept) } : undefined;
}

const VERSION_COLUMNS = [
  'id',
  'channel_id',
  'folder',
  'filename',
  'kind',
  'backup_timestamp',
  'blob_key',
  'size',
  'sha256',
  'content_type',
  'created_at',
  'since_seq',
  'until_seq',
  'created_by',
] as const;

/**
 * The backup and, when it is an instant backup, the file as it holds it (fileAtSeq at its seq), in
 * one statement where readBackup and fileAtSeq take two or three: a restore reads them under the
 * file's lock. The version is the same seek of file_versions_span_idx as fileAtSeq's, read only
 * when the live record was written after the instant. Undefined when there is no such backup.
 */
export async function backupWithFileAt(
  db: Db,
  channelId: string,
  timestamp: string,
  folder: string,
  filename: string,
): Promise<{ backup: BackupRecord; state: FileAtSeq | undefined } | undefined> {
  const versionColumns = sql.join(VERSION_COLUMNS.map((column) => sql`${sql.ref(`v.${column}`)} as ${sql.ref(`v_${column}`)}`));
  const { rows } = await sql<Selectable<BackupsTable> & Record<string, unknown>>`
    select b.*, f.size as f_size, f.sha256 as f_sha256, f.content_type as f_content_type, ${versionColumns}
    from backups b
    left join files f on f.channel_id = b.channel_id and f.folder = ${folder} and f.filename = ${filename} and f.since_seq <= b.seq
    left join file_versions v on f.channel_id is null and v.id = (
      select k.id from file_versions k
      where k.channel_id = b.channel_id and k.folder = ${folder} and k.filename = ${filename} and k.since_seq <= b.seq
      order by k.since_seq desc limit 1)
    where b.channel_id = ${channelId} and b.timestamp = ${timestamp}`.execute(db);
  const row = rows[0];
  if (row === undefined) return undefined;
  const backup = toBackupRecord(row);
  if (row.f_sha256 != null)
    return {
      backup,
      state: { live: { size: Number(row.f_size), sha256: String(row.f_sha256), contentType: String(row.f_content_type) } },
    };
  if (row.v_id == null) return { backup, state: undefined };
  const kept = Object.fromEntries(VERSION_COLUMNS.map((column) => [column, row[`v_${column}`]])) as Selectable<FileVersionsTable>;
  // As fileAtSeq: the newest span to start at or before the instant, if it had not ended by then.
  const liveThen = kept.until_seq !== null && Number(kept.until_seq) > Number(backup.seq);
  return { backup, state: liveThen ? { kept: toFileVersion(kept) } : undefined };
}

/**
 * The file as `backup` (an instant backup) holds it, as the backup's entry: blobKey null when its
 * bytes are still the live ones.
 */
export function backupEntry(backup: BackupRecord, folder: string, filename: string, state: FileAtSeq): FileVersion {
  const bytes = 'live' in state ? { ...state.live, blobKey: null } : state.kept;
  return {
    id: backupEntryId(backup.timestamp, folder, filename),
    channelId: backup.channelId,
    folder,
    filename,
    kind: 'backup',
    backupTimestamp: backup.timestamp,
    blobKey: bytes.blobKey,
    size: bytes.size,
    sha256: bytes.sha256,
    contentType: bytes.contentType,
    createdAt: backup.createdAt,
    createdBy: null,
  };
}

/**
 * The timestamp of the newest instant backup at which the file existed: with its live bytes
 * (written at or before the backup), or with a kept version live then.
 */
export async function newestInstantBackupOf(db: Db, channelId: string, folder: string, filename: string): Promise<string | undefined> {
  const row = await sql<{ timestamp: string }>`
    select max(b.timestamp) as timestamp from backups b
    where b.channel_id = ${channelId} and b.seq is not null and (
      exists (select 1 from files f where f.channel_id = b.channel_id and f.folder = ${folder} and f.filename = ${filename}
              and f.since_seq <= b.seq)
      or exists (select 1 from file_versions v where v.channel_id = b.channel_id and v.folder = ${folder}
              and v.filename = ${filename} and v.since_seq <= b.seq and v.until_seq > b.seq))`.execute(db);
  return row.rows[0]?.timestamp ?? undefined;
}

/**
 * A file's versions, newest first: its kept rows (replaced, deleted, and the per-file rows of
 * backups from before migration 005) and one entry per instant backup at which it existed.
 */
export async function versionsOf(
  db: Db,
  channelId: string,
  folder: string,
  filename: string,
  page: { limit: number; before?: readonly [number, string] | undefined },
): Promise<FileVersion[]> {
  const before = page.before ? sql`where (created_at, id) < (${page.before[0]}, ${backupSortKeyOfId(page.before[1])})` : sql``;
  const result = await sql<Record<string, unknown>>`
    select * from (
      select id, channel_id, folder, filename, kind, backup_timestamp, blob_key, size, sha256, content_type, created_at,
             created_by, since_seq, until_seq
        from file_versions
        where channel_id = ${channelId} and folder = ${folder} and filename = ${filename}
      union all
      select cast(${BACKUP_ENTRY_PREFIX} as text) || b.timestamp, b.channel_id, cast(${folder} as text), cast(${filename} as text),
             cast('backup' as text), b.timestamp, g.blob_key,
             g.size, g.sha256, g.content_type, b.created_at, cast(null as text), g.since_seq, g.until_seq
        from backups b
        join (
          select cast(null as text) as blob_key, size, sha256, content_type, since_seq, cast(null as bigint) as until_seq
            from files where channel_id = ${channelId} and folder = ${folder} and filename = ${filename}
          union all
          select blob_key, size, sha256, content_type, since_seq, until_seq
            from file_versions
            where channel_id = ${channelId} and folder = ${folder} and filename = ${filename}
              and since_seq is not null and until_seq is not null
        ) g on b.seq >= g.since_seq and (g.until_seq is null or b.seq < g.until_seq)
        where b.channel_id = ${channelId} and b.seq is not null
    ) v ${before}
    order by created_at desc, id desc
    limit ${page.limit}`.execute(db);
  return result.rows.map((row) => {
    const version = toFileVersion(row as never);
    const id =
      version.backupTimestamp !== null && version.id.startsWith(BACKUP_ENTRY_PREFIX)
        ? backupEntryId(version.backupTimestamp, folder, filename)
        : version.id;
    // Raw rows: the engines' drivers type bigint columns of a union as they please.
    return { ...version, id, size: Number(version.size), createdAt: Number(version.createdAt) };
  });
}

/** The rows of a state: one per file, with what restoring it needs. */
export interface StateRow {
  folder: string;
  filename: string;
  size: number;
  sha256: string;
  content_type: string;
  /** Null: the live bytes (an instant backup's file not written since, or the live state itself). */
  blob_key: string | null;
  /** The kept row's id (a pre-005 backup's row, or a version live at the instant); null for the live bytes. */
  version_id: string | null;
}

/** Which files a state query reads: one folder (its spellings, legacy-spellings.ts) or all, and, when known, only these candidates. */
export interface StateScope {
  folders?: readonly string[] | undefined;
  /**
   * The name of a relation (a CTE) of (folder, filename) pairs to restrict the state to. The
   * candidates then drive the query: each is looked up by its key, so the cost follows their
   * number, not the channel's size (filtering a channel-wide range by them read every file).
   */
  only?: string | undefined;
}

/** A state of a channel: an instant of its history (a backup's, or any retained one), or a backup from before migration 005. */
export type HistoryState = { seq: number } | { legacyBackup: string };

/** The state a backup names. */
export const stateOfBackup = (backup: BackupRecord): HistoryState =>
  backup.seq === null || backup.seq === undefined ? { legacyBackup: backup.timestamp } : { seq: backup.seq };

/**
 * The channel's files at a state (or live, `state` undefined) as a SQL relation of StateRow:
 * at an instant, the live records written at or before it and the versions live at it; for a
 * backup from before migration 005, its per-file rows.
 */
export function stateAt(channelId: string, state: HistoryState | undefined, scope: StateScope = {}): RawBuilder<StateRow> {
  const folderIs = (alias: string) =>
    scope.folders === undefined ? sql`` : sql`and ${sql.ref(`${alias}.folder`)} in (${sql.join(scope.folders)})`;
  // CROSS JOIN: SQLite then loops over the candidates first, whatever its statistics say.
  const from = (table: string, alias: string) =>
    scope.only === undefined
      ? sql`from ${sql.table(table)} ${sql.ref(alias)} where ${sql.ref(`${alias}.channel_id`)} = ${channelId}`
      : sql`from ${sql.table(scope.only)} t cross join ${sql.table(table)} ${sql.ref(alias)}
          where ${sql.ref(`${alias}.channel_id`)} = ${channelId} and ${sql.ref(`${alias}.folder`)} = t.folder
            and ${sql.ref(`${alias}.filename`)} = t.filename`;
  if (state === undefined) {
    return sql<StateRow>`select f.folder, f.filename, f.size, f.sha256, f.content_type, cast(null as text) as blob_key,
        cast(null as text) as version_id
      ${from('files', 'f')} ${folderIs('f')}`;
  }
  if ('legacyBackup' in state) {
    return sql<StateRow>`select v.folder, v.filename, v.size, v.sha256, v.content_type, v.blob_key, v.id as version_id
      ${from('file_versions', 'v')} and v.kind = 'backup' and v.backup_timestamp = ${state.legacyBackup} ${folderIs('v')}`;
  }
  const at = state.seq;
  return sql<StateRow>`select f.folder, f.filename, f.size, f.sha256, f.content_type, cast(null as text) as blob_key,
        cast(null as text) as version_id
      ${from('files', 'f')} and f.since_seq <= ${at} ${folderIs('f')}
    union all
    select v.folder, v.filename, v.size, v.sha256, v.content_type, v.blob_key, v.id as version_id
      ${from('file_versions', 'v')} and v.since_seq <= ${at} and v.until_seq > ${at} ${folderIs('v')}
        and not exists (select 1 from files l where l.channel_id = v.channel_id and l.folder = v.folder
                        and l.filename = v.filename and l.since_seq <= ${at})`;
}

/**
 * The files whose state may differ between two instants `from` < `to` of the channel's history:
 * those written, replaced or deleted in between. Reads the writes between them through the
 * (channel, since_seq) and (channel, until_seq) indexes: its cost follows the change.
 */
export function touchedBetween(channelId: string, from: number, to: number): RawBuilder<{ folder: string; filename: string }> {
  return sql`select f.folder, f.filename from files f
      where f.channel_id = ${channelId} and f.since_seq > ${from} and f.since_seq <= ${to}
    union
    select v.folder, v.filename from file_versions v
      where v.channel_id = ${channelId} and v.until_seq > ${from} and v.since_seq <= ${to}
        and (v.until_seq <= ${to} or v.since_seq > ${from})`;
}
