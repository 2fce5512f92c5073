import { type Kysely, sql } from 'kysely';

/**
 * Quotas (docs/quotas.md): a tenant's and a channel's limits in bytes and files (null: none), and
 * the kept versions each channel holds, counted beside its live files on its clock row: every
 * write that keeps a version adds it there in its own transaction, and retention takes it off in
 * the transaction that prunes it, so usage is exact without a scan. Counted here once from the
 * versions stored before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['tenants', 'channels']) {
    await db.schema.alterTable(table).addColumn('quota_max_bytes', 'bigint').execute();
    await db.schema.alterTable(table).addColumn('quota_max_files', 'bigint').execute();
  }
  await db.schema
    .alterTable('channel_clocks')
    .addColumn('kept_files', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('channel_clocks')
    .addColumn('kept_bytes', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`
    update channel_clocks set
      kept_files = (select count(*) from file_versions v where v.channel_id = channel_clocks.channel_id),
      kept_bytes = (select coalesce(sum(v.size), 0) from file_versions v where v.channel_id = channel_clocks.channel_id)
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channel_clocks').dropColumn('kept_bytes').execute();
  await db.schema.alterTable('channel_clocks').dropColumn('kept_files').execute();
  for (const table of ['channels', 'tenants']) {
    await db.schema.alterTable(table).dropColumn('quota_max_files').execute();
    await db.schema.alterTable(table).dropColumn('quota_max_bytes').execute();
  }
}
