import { type Kysely, sql } from 'kysely';

/**
 * Locked backups (docs/backup-locks.md): a backup row may carry a retention lock and a legal hold.
 *
 * - lock_mode: 'governance' (an owner, or the operator's CLI, may shorten or lift it) or
 *   'compliance' (nobody may, before lock_until); null: no retention lock.
 * - lock_until: when the retention lock ends, epoch ms; set exactly when lock_mode is.
 * - legal_hold: 1 while held (until released), else 0. An integer, not a boolean: SQLite has none,
 *   and the codebase stores no boolean column elsewhere; 0/1 reads the same on both engines.
 * - locked_by / locked_at: the admin (null: the operator's CLI) who last changed the lock, and when.
 *
 * The lock lives in the database beside the backup, so it survives restarts, upgrades and restores
 * (a restore writes new versions, never backup rows). Existing backups start unlocked.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('backups')
    .addColumn('lock_mode', 'text', (col) => col.check(sql`lock_mode in ('governance', 'compliance')`))
    .execute();
  await db.schema.alterTable('backups').addColumn('lock_until', 'bigint').execute();
  await db.schema
    .alterTable('backups')
    .addColumn('legal_hold', 'integer', (col) => col.notNull().defaultTo(0).check(sql`legal_hold in (0, 1)`))
    .execute();
  await db.schema.alterTable('backups').addColumn('locked_by', 'text').execute();
  await db.schema.alterTable('backups').addColumn('locked_at', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['locked_at', 'locked_by', 'legal_hold', 'lock_until', 'lock_mode'])
    await db.schema.alterTable('backups').dropColumn(column).execute();
}
