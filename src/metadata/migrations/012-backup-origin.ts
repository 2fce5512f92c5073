import type { Kysely } from 'kysely';

/**
 * backups.origin: what made the backup — 'api' (an admin's request), 'schedule' (BACKUP_INTERVAL),
 * 'cli' (`wallet-admin backup create`), 'restore' (the safety backup a folder or channel restore
 * takes first) or 'demo' (the demo data of a first start). created_by alone cannot tell them apart:
 * it is null for both the schedule and the CLI. Backups made before this migration keep null:
 * nothing recorded what made them, and nothing is claimed for them now.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('backups').addColumn('origin', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('backups').dropColumn('origin').execute();
}
