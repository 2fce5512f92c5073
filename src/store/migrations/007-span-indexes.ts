import { type Kysely, sql } from 'kysely';

/**
 * Lookups of one file's history that stay one index seek however many versions the file has
 * (a file restored thousands of times has thousands):
 *
 * - file_versions_span_idx: the version live at an instant is the file's newest span starting at
 *   or before it (spans of one file follow each other), read as `since_seq <= S order by since_seq
 *   desc limit 1`;
 * - file_versions_open_span_idx: the one version whose span a write ends (until_seq still null),
 *   partial so that it holds only those.
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
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('file_versions_open_span_idx').execute();
  await db.schema.dropIndex('file_versions_span_idx').execute();
}
