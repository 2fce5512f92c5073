import { type Kysely, sql } from 'kysely';

/**
 * Lookups whose cost follows what they look for, not how much a file or folder holds:
 *
 * - file_versions_span_idx: the version live at an instant is the file's newest span starting at
 *   or before it (spans of one file follow each other), read as `since_seq <= S order by since_seq
 *   desc limit 1`: one seek however many versions the file has (a file restored thousands of
 *   times has thousands);
 * - file_versions_open_span_idx: the one version whose span a write ends (until_seq still null),
 *   partial so that it holds only those;
 * - folder_counts: the live files of each folder, kept in the write's transaction as the channel's
 *   count is beside its clock, so that a folder restore's plan and the folder listing count
 *   without reading the folder. A folder's row goes with its last file.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('file_versions_span_idx')
    .on('file_versions')
    .columns(['channel_id', 'folder', 'filename', 'since_seq'])
    .execute();
  await db.schema
    .createIndex('file_versions_open_span_idx')
    .on('file_versions')
    .columns(['channel_id', 'folder', 'filename'])
    .where(sql<boolean>`until_seq is null and since_seq is not null`)
    .execute();

  await db.schema
    .createTable('folder_counts')
    .addColumn('channel_id', 'text', (col) => col.notNull().references('channels.id'))
    .addColumn('folder', 'text', (col) => col.notNull())
    .addColumn('files', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('folder_counts_pk', ['channel_id', 'folder'])
    .execute();
  await sql`insert into folder_counts (channel_id, folder, files)
    select channel_id, folder, count(*) from files group by channel_id, folder`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('folder_counts').execute();
  await db.schema.dropIndex('file_versions_open_span_idx').execute();
  await db.schema.dropIndex('file_versions_span_idx').execute();
}
