import { type Kysely, sql } from 'kysely';

/**
 * Backups as instants of a channel's history instead of copies of its files (see docs/architecture.md,
 * "Backups are instants of a channel's history").
 *
 * - channel_clocks: per channel, a counter every live write advances (seq), with the channel's
 *   live file count and bytes kept beside it, so that a backup reads one row.
 * - files.since_seq: the clock value at which the live bytes were written (0: before this
 *   migration, i.e. before every backup it will see).
 * - file_versions.since_seq / until_seq: the span of clock values during which a replaced or
 *   deleted version was the live one; null on versions written before this migration.
 * - backups.seq: the instant a backup names; null on backups written before, whose per-file
 *   'backup' rows stay and keep answering for them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('channel_clocks')
    .addColumn('channel_id', 'text', (col) => col.primaryKey().references('channels.id'))
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('files', 'bigint', (col) => col.notNull())
    .addColumn('bytes', 'bigint', (col) => col.notNull())
    .execute();
  await sql`insert into channel_clocks (channel_id, seq, files, bytes)
    select channel_id, 0, count(*), coalesce(sum(size), 0) from files group by channel_id`.execute(db);

  await db.schema
    .alterTable('files')
    .addColumn('since_seq', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('file_versions').addColumn('since_seq', 'bigint').execute();
  await db.schema.alterTable('file_versions').addColumn('until_seq', 'bigint').execute();
  await db.schema.alterTable('backups').addColumn('seq', 'bigint').execute();

  // What changed after an instant: live files written since, versions ended since.
  await db.schema.createIndex('files_since_idx').on('files').columns(['channel_id', 'since_seq']).execute();
  await db.schema.createIndex('file_versions_until_idx').on('file_versions').columns(['channel_id', 'until_seq']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('file_versions_until_idx').execute();
  await db.schema.dropIndex('files_since_idx').execute();
  await db.schema.alterTable('backups').dropColumn('seq').execute();
  await db.schema.alterTable('file_versions').dropColumn('until_seq').execute();
  await db.schema.alterTable('file_versions').dropColumn('since_seq').execute();
  await db.schema.alterTable('files').dropColumn('since_seq').execute();
  await db.schema.dropTable('channel_clocks').execute();
}
