import type { Kysely } from 'kysely';

/**
 * read_holds (src/model/read-holds.ts): a channel's blobs held against retention while an archive
 * streams them, by whom and until when. Not shipped off-site: a hold outlives nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('read_holds')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('channel_id', 'text', (col) => col.notNull())
    .addColumn('admin_id', 'text', (col) => col.notNull())
    .addColumn('until', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('read_holds_channel').on('read_holds').columns(['channel_id', 'until']).execute();
  await db.schema.createIndex('read_holds_admin').on('read_holds').columns(['admin_id', 'until']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('read_holds').execute();
}
