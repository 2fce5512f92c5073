import { type Kysely, sql } from 'kysely';
import { backupExists } from '../errors/common-errors.ts';
import { changesBetween, changesSince } from './changes-queries.ts';
import {
  advanceClock,
  countInFolder,
  endLiveSpan,
  fileAtBackup,
  fileAtSeq,
  keptRowsOf,
  newestInstantBackupOf,
  readBackup,
  readClock,
  versionsOf,
} from './channel-history.ts';
import { BACKUP_UNIQUE, violates } from './database-errors.ts';
import { listDeleted } from './deleted-files-queries.ts';
import type { DurableTransaction } from './durable-transaction.ts';
import {
  auditRow,
  backupRow,
  fileRow,
  toAuditEvent,
  toBackupRecord,
  toFileRecord,
  toFileVersion,
  toPendingWrite,
} from './file-catalog-rows.ts';
import type {
  AuditEvent,
  AuditFilter,
  BackupRecord,
  FileCatalog,
  FileRecord,
  FileVersion,
  FolderSummary,
  Lookalikes,
  NewAuditEvent,
  NewBackup,
  Page,
  PageRequest,
  PendingWrite,
  PublicCopyDue,
  StoredPath,
} from './file-catalog-types.ts';
import { newAuditId } from './ids.ts';
import { canBeStoredKey } from './input-validation.ts';
import { resolveInstant, retainFrom } from './instant-queries.ts';
import { type LegacySpellings, legacySpellings } from './legacy-spellings.ts';
import { abandonWrite, commitDelete, commitWrite, journalWrite, upsertLiveRow } from './live-file-commits.ts';
import { decodeCursor, pageByKey, pageFrom } from './page-cursor.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

// Rows per INSERT or IN list: far below SQLite's 32,766 bound parameters and PostgreSQL's 65,535.
const BATCH = 500;

/**
 * Keyset condition "(created_at, id) comes before the cursor's" for newest-first lists. Row-value
 * comparison means the same on both engines (SQLite has it since 3.15).
 */
function olderThan(cursor: string | undefined) {
  if (cursor === undefined) return sql<boolean>`true`;
  const [createdAt, id] = decodeCursor(cursor, ['number', 'string']);
  return sql<boolean>`(created_at, id) < (${createdAt}, ${id})`;
}

/**
 * The file catalog: files, versions, backups, pending writes and the audit log, on the metadata's
 * database. A folder named in a listing, a count, the changes or the audit log's filter covers
 * every spelling of it an older release stored (legacy-spellings.ts): they look the same.
 */
export function fileCatalog(
  db: Db,
  durably: DurableTransaction = (work) => db.transaction().execute(work),
  spellings: LegacySpellings = legacySpellings(db),
): FileCatalog {
  const foldersOf = async (channelId: string, folder: string | undefined) =>
    folder === undefined ? undefined : spellings.of(channelId, 'folder', folder);
  const catalog: FileCatalog = {
    async putFile(record: FileRecord): Promise<'created' | 'replaced'> {
      return db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('files')
          .select('size')
          .where('channel_id', '=', record.channelId)
          .where('folder', '=', record.folder)
          .where('filename', '=', record.filename)
          .executeTakeFirst();
        // The new bytes' place in the channel's history; the bytes they replace end there.
        const seq = await advanceClock(
          trx,
          record.channelId,
          { files: existing ? 0 : 1, bytes: record.size - (existing ? Number(existing.size) : 0) },
          record.updatedAt,
        );
        await upsertLiveRow(trx, fileRow(record, seq));
        await endLiveSpan(trx, record.channelId, record.folder, record.filename, seq);
        if (!existing) await countInFolder(trx, record.channelId, record.folder, 1);
        return existing ? 'replaced' : 'created';
      });
    },

    async getFile(channelId: string, folder: string, filename: string): Promise<FileRecord | undefined> {
      const row = await db
        .selectFrom('files')
        .selectAll()
        .where('channel_id', '=', channelId)
        .where('folder', '=', folder)
        .where('filename', '=', filename)
        .executeTakeFirst();
      return row && toFileRecord(row);
    },

    async deleteFile(channelId: string, folder: string, filename: string, at: number): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const existing = await trx
          .deleteFrom('files')
          .where('channel_id', '=', channelId)
          .where('folder', '=', folder)
          .where('filename', '=', filename)
          .returning('size')
          .executeTakeFirst();
        if (!existing) return false;
        const seq = await advanceClock(trx, channelId, { files: -1, bytes: -Number(existing.size) }, at);
        await endLiveSpan(trx, channelId, folder, filename, seq);
        await countInFolder(trx, channelId, folder, -1);
        return true;
      });
    },

    async listFiles(channelId: string, folder: string, page: PageRequest): Promise<Page<FileRecord>> {
      const folders = await spellings.of(channelId, 'folder', folder);
      const query = db.selectFrom('files').selectAll().where('channel_id', '=', channelId).where('folder', 'in', folders);
      // By filename; then by folder when look-alike folders are listed together, which may each hold a file of one name.
      return pageByKey(query, page, toFileRecord, {
        column: 'filename',
        tieBreak: folders.length > 1 ? 'folder' : undefined,
        keyOf: (f) => (folders.length > 1 ? [f.filename, f.folder] : [f.filename]),
      });
    },

    async listFolders(channelId: string, page: PageRequest): Promise<Page<FolderSummary>> {
      // Counted by every write (folder_counts): a page reads its own folders' rows, never their files.
      const query = db.selectFrom('folder_counts').select(['folder', 'files']).where('channel_id', '=', channelId);
      return pageByKey(query, page, (r) => ({ name: r.folder, fileCount: Number(r.files) }), { column: 'folder', keyOf: (f) => [f.name] });
    },

    async allFiles(channelId: string): Promise<FileRecord[]> {
      const rows = await db
        .selectFrom('files')
        .selectAll()
        .where('channel_id', '=', channelId)
        .orderBy('folder')
        .orderBy('filename')
        .execute();
      return rows.map(toFileRecord);
    },

    async getVersion(channelId: string, id: string): Promise<FileVersion | undefined> {
      if (!canBeStoredKey(id)) return undefined;
      const row = await db
        .selectFrom('file_versions')
        .selectAll()
        .where('channel_id', '=', channelId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toFileVersion(row);
    },

    async listVersions(channelId: string, folder: string, filename: string, page: PageRequest): Promise<Page<FileVersion>> {
      const before = page.cursor === undefined ? undefined : decodeCursor(page.cursor, ['number', 'string']);
      const rows = await versionsOf(db, channelId, folder, filename, { limit: page.limit + 1, before });
      return pageFrom(rows, page.limit, (v) => [v.createdAt, v.id]);
    },

    listDeleted: async (channelId, folder, page) => listDeleted(db, channelId, await spellings.of(channelId, 'folder', folder), page),

    async lookalikes(channelId: string, path: StoredPath): Promise<Lookalikes | undefined> {
      const folders = await spellings.of(channelId, 'folder', path.folder);
      const filenames = await spellings.of(channelId, 'file', path.filename);
      if (folders.length === 1 && filenames.length === 1) return undefined;
      const live = await db
        .selectFrom('files')
        .selectAll()
        .where('channel_id', '=', channelId)
        .where('folder', 'in', folders)
        .where('filename', 'in', filenames)
        .orderBy('folder')
        .orderBy('filename')
        .execute();
      const kept = await db
        .selectFrom('file_versions')
        .select(['folder', 'filename'])
        .distinct()
        .where('channel_id', '=', channelId)
        .where('folder', 'in', folders)
        .where('filename', 'in', filenames)
        .orderBy('folder')
        .orderBy('filename')
        .execute();
      const liveFolders = await db
        .selectFrom('folder_counts')
        .select('folder')
        .where('channel_id', '=', channelId)
        .where('folder', 'in', folders)
        .orderBy('folder')
        .execute();
      return { live: live.map(toFileRecord), kept, liveFolders: liveFolders.map((row) => row.folder) };
    },

    async createBackup(backup: NewBackup): Promise<BackupRecord> {
      try {
        return await db.transaction().execute(async (trx) => {
          // One row, whatever the channel's size: the instant, and the count and bytes kept beside it.
          const clock = await readClock(trx, backup.channelId);
          const record: BackupRecord = { ...backup, files: clock.files, bytes: clock.bytes, seq: clock.seq };
          await trx.insertInto('backups').values(backupRow(record)).execute();
          return record;
        });
      } catch (error) {
        if (violates(error, BACKUP_UNIQUE)) throw backupExists(backup.timestamp);
        throw error;
      }
    },

    clock: (channelId: string) => readClock(db, channelId),

    getBackup: (channelId, timestamp) => readBackup(db, channelId, timestamp),

    async listBackups(channelId: string, page: PageRequest): Promise<Page<BackupRecord>> {
      const query = db.selectFrom('backups').selectAll().where('channel_id', '=', channelId);
      return pageByKey(query, page, toBackupRecord, { column: 'timestamp', descending: true, keyOf: (b) => [b.timestamp] });
    },

    async backupVersion(channelId: string, timestamp: string, folder: string, filename: string): Promise<FileVersion | undefined> {
      const backup = await catalog.getBackup(channelId, timestamp);
      if (backup === undefined) return undefined;
      if (backup.seq !== null && backup.seq !== undefined) return fileAtBackup(db, { ...backup, seq: backup.seq }, folder, filename);
      // A backup from before migration 005 keeps one row per file.
      const row = await keptRowsOf(db, channelId, folder, filename).where('backup_timestamp', '=', timestamp).executeTakeFirst();
      return row && toFileVersion(row);
    },

    async newestBackupVersion(channelId: string, folder: string, filename: string): Promise<FileVersion | undefined> {
      const legacy = await db
        .selectFrom('file_versions as v')
        // Retention may keep a file's last version after its backup is gone; that is no backup any more.
        .innerJoin('backups as b', (join) =>
          join.onRef('b.channel_id', '=', 'v.channel_id').onRef('b.timestamp', '=', 'v.backup_timestamp'),
        )
        .select('v.backup_timestamp')
        .where('v.channel_id', '=', channelId)
        .where('v.folder', '=', folder)
        .where('v.filename', '=', filename)
        .orderBy('v.backup_timestamp', 'desc')
        .limit(1)
        .executeTakeFirst();
      const instant = await newestInstantBackupOf(db, channelId, folder, filename);
      const newest = [legacy?.backup_timestamp ?? undefined, instant]
        .filter((t): t is string => typeof t === 'string')
        .sort()
        .at(-1);
      return newest === undefined ? undefined : catalog.backupVersion(channelId, newest, folder, filename);
    },

    resolveInstant: (channelId, at) => resolveInstant(db, channelId, at),
    fileAtSeq: (channelId, seq, folder, filename) => fileAtSeq(db, channelId, seq, folder, filename),
    changesBetween: async (channelId, from, to, options) =>
      changesBetween(db, channelId, from, to, { folders: await foldersOf(channelId, options.folder), page: options.page }),
    changesSince: async (channelId, from, scope) => changesSince(db, channelId, from, await foldersOf(channelId, scope.folder)),
    async countFiles(channelId, scope) {
      if (scope.folder === undefined) return (await readClock(db, channelId)).files;
      const rows = await db
        .selectFrom('folder_counts')
        .select('files')
        .where('channel_id', '=', channelId)
        .where('folder', 'in', await spellings.of(channelId, 'folder', scope.folder))
        .execute();
      return rows.reduce((sum, row) => sum + Number(row.files), 0);
    },

    async pruneChannel(
      channelId: string,
      rules: { keepLast: number; backupsOlderThan: number; versionsOlderThan: number },
    ): Promise<string[]> {
      // Durable: the caller removes the blobs of the rows it deletes, which a commit taken back by a power loss would name again.
      return durably(async (trx) => {
        const expiredBackups = (
          await trx
            .selectFrom('backups')
            .select(['timestamp', 'created_at'])
            .where('channel_id', '=', channelId)
            .orderBy('timestamp', 'desc')
            .execute()
        )
          .slice(rules.keepLast)
          .filter((b) => b.created_at < rules.backupsOlderThan)
          .map((b) => b.timestamp);

        const doomed: { id: string; blob_key: string; until_seq: number | null }[] = [];
        const candidates = (timestamps: string[]) =>
          trx
            .selectFrom('file_versions as v')
            .select(['v.id', 'v.blob_key', 'v.until_seq'])
            .where('v.channel_id', '=', channelId)
            .where((eb) =>
              eb.or([
                timestamps.length > 0 ? eb('v.backup_timestamp', 'in', timestamps) : sql<boolean>`false`,
                eb.and([eb('v.kind', 'in', ['replaced', 'deleted']), eb('v.created_at', '<', rules.versionsOlderThan)]),
              ]),
            )
            // Bytes a kept instant backup holds stay: a backup that remains names an instant in their span.
            .where((eb) =>
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('backups as b')
                    .select('b.timestamp')
                    .whereRef('b.channel_id', '=', 'v.channel_id')
                    .where('b.seq', 'is not', null)
                    .where((w) => (timestamps.length > 0 ? w('b.timestamp', 'not in', timestamps) : sql<boolean>`true`))
                    .whereRef('b.seq', '>=', 'v.since_seq')
                    .where((w) => w.or([w('v.until_seq', 'is', null), w('b.seq', '<', w.ref('v.until_seq'))])),
                ),
              ),
            )
            // The newest version of each file stays, whatever its age: it may be all that is left of it.
            .where((eb) =>
              eb.exists(
                eb
                  .selectFrom('file_versions as newer')
                  .select('newer.id')
                  .whereRef('newer.channel_id', '=', 'v.channel_id')
                  .whereRef('newer.folder', '=', 'v.folder')
                  .whereRef('newer.filename', '=', 'v.filename')
                  .where((n) =>
                    n.or([
                      n('newer.created_at', '>', n.ref('v.created_at')),
                      n.and([n('newer.created_at', '=', n.ref('v.created_at')), n('newer.id', '>', n.ref('v.id'))]),
                    ]),
                  ),
              ),
            )
            .execute();
        for (let i = 0; i < Math.max(expiredBackups.length, 1); i += BATCH)
          doomed.push(...(await candidates(expiredBackups.slice(i, i + BATCH))));

        const ids = [...new Set(doomed.map((v) => v.id))];
        // The states these versions belonged to are gone: instants before their spans' ends are no longer retained.
        const ended = doomed.reduce((max, v) => Math.max(max, v.until_seq === null ? 0 : Number(v.until_seq)), 0);
        if (ended > 0) await retainFrom(trx, channelId, ended);
        for (let i = 0; i < ids.length; i += BATCH)
          await trx
            .deleteFrom('file_versions')
            .where('id', 'in', ids.slice(i, i + BATCH))
            .execute();
        for (let i = 0; i < expiredBackups.length; i += BATCH) {
          await trx
            .deleteFrom('backups')
            .where('channel_id', '=', channelId)
            .where('timestamp', 'in', expiredBackups.slice(i, i + BATCH))
            .execute();
        }
        return [...new Set(doomed.map((v) => v.blob_key))];
      });
    },

    async channelsWithFiles(): Promise<string[]> {
      const rows = await db
        .selectFrom('files')
        .select('channel_id')
        .union(db.selectFrom('file_versions').select('channel_id'))
        .union(db.selectFrom('backups').select('channel_id'))
        .execute();
      return rows.map((r) => r.channel_id).sort();
    },

    journalWrite: (write) => journalWrite(db, write),
    commitWrite: (commit) => commitWrite(db, commit),
    commitDelete: (commit) => commitDelete(db, commit),
    abandonWrite: (id, at) => abandonWrite(db, id, at),

    async endWrite(id: string): Promise<void> {
      await db.deleteFrom('pending_writes').where('id', '=', id).execute();
    },

    async pendingWrites(): Promise<PendingWrite[]> {
      const rows = await db.selectFrom('pending_writes').selectAll().orderBy('started_at').orderBy('id').execute();
      return rows.map(toPendingWrite);
    },

    async publicCopiesDue(path): Promise<PublicCopyDue[]> {
      let query = db.selectFrom('public_copies_due').selectAll();
      if (path !== undefined)
        query = query.where('channel_id', '=', path.channelId).where('folder', '=', path.folder).where('filename', '=', path.filename);
      const rows = await query.orderBy('queued_at').execute();
      return rows.map((r) => ({ channelId: r.channel_id, folder: r.folder, filename: r.filename, queuedAt: Number(r.queued_at) }));
    },

    async endPublicCopyDue(due: PublicCopyDue): Promise<void> {
      await db
        .deleteFrom('public_copies_due')
        .where('channel_id', '=', due.channelId)
        .where('folder', '=', due.folder)
        .where('filename', '=', due.filename)
        .where('queued_at', '=', due.queuedAt)
        .execute();
    },

    async versionHoldingBlob(path, blobKey: string): Promise<FileVersion | undefined> {
      const row = await keptRowsOf(db, path.channelId, path.folder, path.filename).where('blob_key', '=', blobKey).executeTakeFirst();
      return row && toFileVersion(row);
    },

    async moveVersionBlob({ versionId, from, to, writeId }): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const moved = await trx
          .updateTable('file_versions')
          .set({ blob_key: to })
          .where('id', '=', versionId)
          .where('blob_key', '=', from)
          .executeTakeFirst();
        if (moved.numUpdatedRows !== 1n) return false;
        await trx.deleteFrom('pending_writes').where('id', '=', writeId).execute();
        return true;
      });
    },

    async appendAudit(event: NewAuditEvent): Promise<AuditEvent> {
      const row = auditRow(newAuditId(), event);
      await db.insertInto('audit_events').values(row).execute();
      return toAuditEvent(row);
    },

    async listAudit(channelId: string, page: PageRequest, filter: AuditFilter = {}): Promise<Page<AuditEvent>> {
      // The keyset cursor is (created_at, id) whatever the filter, so a page's `next` goes on with
      // the same filter; each filter has an index starting (channel_id, column) (migrations 003, 009).
      let query = db.selectFrom('audit_events').selectAll().where('channel_id', '=', channelId);
      if (filter.action !== undefined) query = query.where('action', '=', filter.action);
      if (filter.adminId !== undefined) query = query.where('admin_id', '=', filter.adminId);
      if (filter.folder !== undefined) query = query.where('folder', 'in', await spellings.of(channelId, 'folder', filter.folder));
      if (filter.filename !== undefined) query = query.where('filename', 'in', await spellings.of(channelId, 'file', filter.filename));
      if (filter.result !== undefined) query = query.where('result', '=', filter.result);
      if (filter.operationId !== undefined) query = query.where('operation_id', '=', filter.operationId);
      const rows = await query
        .where(olderThan(page.cursor))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit + 1)
        .execute();
      return pageFrom(rows.map(toAuditEvent), page.limit, (e) => [e.createdAt, e.id]);
    },
  };
  return catalog;
}
