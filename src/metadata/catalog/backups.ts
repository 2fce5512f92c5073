import { type Kysely, sql } from 'kysely';
import { backupExists } from '../../errors/common-errors.ts';
import type { NewAuditEvent } from '../../model/audit.ts';
import { type BackupRecord, type Backups, holdsAt, type NewBackup, type Pruned, type PruneRules } from '../../model/backups.ts';
import type { Page, PageRequest } from '../../model/paging.ts';
import type { FileVersion } from '../../model/versions.ts';
import { BACKUP_UNIQUE, violates } from '../database-errors.ts';
import type { DurableTransaction } from '../durable-transaction.ts';
import { inTransaction } from '../in-transaction.ts';
import { pageByKey } from '../page-cursor.ts';
import type { Database } from '../schema.ts';
import { appendChained } from './audit-chain-records.ts';
import { backupEntry, backupWithFileAt, keptRowsOf, newestInstantBackupOf, readBackup, readClock } from './channel-history.ts';
import { backupLockColumns, backupRow, toBackupLock, toBackupRecord, toFileVersion } from './file-catalog-rows.ts';
import { retainFrom } from './instant-queries.ts';

type Db = Kysely<Database>;

// Rows per INSERT or IN list: far below SQLite's 32,766 bound parameters and PostgreSQL's 65,535.
const BATCH = 500;

/** Backups (one row naming an instant of the channel's history), what each holds of a file, and retention. */
export function backups(db: Db, durably: DurableTransaction): Backups {
  return catalogBackups(db, durably);
}

function catalogBackups(db: Db, durably: DurableTransaction): Backups {
  const backups: Backups = {
    async createBackup(backup: NewBackup, audit?: NewAuditEvent): Promise<BackupRecord> {
      try {
        return await inTransaction(db, async (trx) => {
          // One row, whatever the channel's size: the instant, and the count and bytes kept beside it.
          const clock = await readClock(trx, backup.channelId);
          const record: BackupRecord = { ...backup, files: clock.files, bytes: clock.bytes, seq: clock.seq, lock: null };
          await trx.insertInto('backups').values(backupRow(record)).execute();
          if (audit) await appendChained(trx, audit);
          return record;
        });
      } catch (error) {
        if (violates(error, BACKUP_UNIQUE)) throw backupExists(backup.timestamp);
        throw error;
      }
    },
    getBackup: (channelId, timestamp) => readBackup(db, channelId, timestamp),
    async listBackups(channelId: string, page: PageRequest): Promise<Page<BackupRecord>> {
      const query = db.selectFrom('backups').selectAll().where('channel_id', '=', channelId);
      return pageByKey(query, page, toBackupRecord, { column: 'timestamp', descending: true, keyOf: (b) => [b.timestamp] });
    },
    async backupVersion(channelId: string, timestamp: string, folder: string, filename: string): Promise<FileVersion | undefined> {
      const found = await backupWithFileAt(db, channelId, timestamp, folder, filename);
      if (found === undefined) return undefined;
      const { backup, state } = found;
      if (backup.seq !== null && backup.seq !== undefined) return state && backupEntry(backup, folder, filename, state);
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
      return newest === undefined ? undefined : backups.backupVersion(channelId, newest, folder, filename);
    },
    async pruneChannel(channelId: string, rules: PruneRules, audit?: (pruned: Pruned) => NewAuditEvent): Promise<string[]> {
      // Durable: the caller removes the blobs of the rows it deletes, which a commit taken back by a power loss would name again.
      return durably(async (trx) => {
        const expiredBackups = (
          await trx
            .selectFrom('backups')
            .select(['timestamp', 'created_at', 'lock_mode', 'lock_until', 'legal_hold', 'locked_by', 'locked_at'])
            .where('channel_id', '=', channelId)
            .orderBy('timestamp', 'desc')
            .execute()
        )
          .slice(rules.keepLast)
          .filter((b) => b.created_at < rules.backupsOlderThan)
          // A locked backup stays, and so (below: it remains) does every version it names; past its date it goes as any other.
          .filter((b) => !holdsAt(toBackupLock(b), rules.now))
          .map((b) => b.timestamp);

        const doomed: { id: string; blob_key: string; until_seq: number | null; size: number }[] = [];
        const candidates = (timestamps: string[]) =>
          trx
            .selectFrom('file_versions as v')
            .select(['v.id', 'v.blob_key', 'v.until_seq', 'v.size'])
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
        // The channel's usage (docs/quotas.md) loses them in the same transaction.
        if (ids.length > 0) {
          const pruned = new Map(doomed.map((v) => [v.id, Number(v.size)]));
          const bytes = [...pruned.values()].reduce((sum, size) => sum + size, 0);
          await trx
            .updateTable('channel_clocks')
            .set((eb) => ({ kept_files: eb('kept_files', '-', pruned.size), kept_bytes: eb('kept_bytes', '-', bytes) }))
            .where('channel_id', '=', channelId)
            .execute();
        }
        for (let i = 0; i < expiredBackups.length; i += BATCH) {
          await trx
            .deleteFrom('backups')
            .where('channel_id', '=', channelId)
            .where('timestamp', 'in', expiredBackups.slice(i, i + BATCH))
            .execute();
        }
        const blobs = [...new Set(doomed.map((v) => v.blob_key))];
        // One entry for the run, in its transaction: what retention removes is in the log, or stays.
        if (audit && (ids.length > 0 || expiredBackups.length > 0)) {
          await appendChained(trx, audit({ backups: [...expiredBackups].sort(), versions: ids.length, blobs: blobs.length }));
        }
        return blobs;
      });
    },
    async setBackupLock(channelId, timestamp, expected, next, audit) {
      if (audit !== undefined) {
        // The change and its entry, or neither.
        return inTransaction(db, async (trx) => {
          const changed = await backupsOf(trx).setBackupLock(channelId, timestamp, expected, next);
          if (changed) await appendChained(trx, audit);
          return changed;
        });
      }
      const result = await db
        .updateTable('backups')
        .set(backupLockColumns(next))
        .where('channel_id', '=', channelId)
        .where('timestamp', '=', timestamp)
        // Compare-and-set: a change made in between (another instance, another admin) is never overwritten unseen.
        .where((eb) => {
          const was = backupLockColumns(expected);
          return eb.and([
            was.lock_mode === null ? eb('lock_mode', 'is', null) : eb('lock_mode', '=', was.lock_mode),
            was.lock_until === null ? eb('lock_until', 'is', null) : eb('lock_until', '=', was.lock_until),
            eb('legal_hold', '=', was.legal_hold),
          ]);
        })
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async deleteBackup(channelId, timestamp, check, audit) {
      if (audit !== undefined) {
        return inTransaction(db, async (trx) => {
          const outcome = await backupsOf(trx).deleteBackup(channelId, timestamp, check);
          if (outcome === 'deleted') await appendChained(trx, audit);
          return outcome;
        });
      }
      const { now, bypassGovernance } = check;
      // One statement: the lock is checked by the DELETE itself, so a lock set in the same instant either wins or comes too late.
      const result = await db
        .deleteFrom('backups')
        .where('channel_id', '=', channelId)
        .where('timestamp', '=', timestamp)
        .where('legal_hold', '=', 0)
        .where((eb) =>
          eb.or([
            eb('lock_mode', 'is', null),
            eb('lock_until', '<=', now),
            ...(bypassGovernance ? [eb('lock_mode', '=', 'governance')] : []),
          ]),
        )
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 1) return 'deleted';
      return (await readBackup(db, channelId, timestamp)) === undefined ? 'missing' : 'locked';
    },
  };
  // The same methods over the caller's transaction, for the audited forms above.
  const backupsOf = (trx: Db) => (trx === db ? backups : catalogBackups(trx, durably));
  return backups;
}
