import { type Kysely, sql } from 'kysely';

/**
 * Live files name their bytes (files.blob_key) instead of living at a predictable path: every
 * write stores its bytes under a fresh key that nothing reads until the write's transaction
 * records it, so the database row is the one commit point (docs/architecture.md, "How a write commits").
 *
 * - files.blob_key: where the record's bytes are. Files written before this migration keep their
 *   bytes where the previous release put them, files/<channel>/<folder>/<filename>, and the
 *   backfill names that key; nothing writes there any more.
 * - pending_writes.blob_key: the bytes a write stored and has not recorded yet (null: an entry
 *   journalled by the previous release, settled the previous release's way at start-up).
 * - pending_writes.abandoned_at: when a write that will never be recorded was given up, so its
 *   bytes are removed only once nothing can record them any more (write-journal.ts).
 * - public_copies_due: files whose public copy (S3_PUBLIC_BASE_URL: files/<channel>/<folder>/<filename>
 *   in the bucket) must be brought in line with their record, queued by the write's own
 *   transaction and cleared once the copy is done (public-copies.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('files').addColumn('blob_key', 'text').execute();
  await sql`update files set blob_key = 'files/' || channel_id || '/' || folder || '/' || filename`.execute(db);
  await db.schema.alterTable('pending_writes').addColumn('blob_key', 'text').execute();
  await db.schema.alterTable('pending_writes').addColumn('abandoned_at', 'bigint').execute();
  await db.schema
    .createTable('public_copies_due')
    .addColumn('channel_id', 'text', (col) => col.notNull())
    .addColumn('folder', 'text', (col) => col.notNull())
    .addColumn('filename', 'text', (col) => col.notNull())
    .addColumn('queued_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('public_copies_due_pk', ['channel_id', 'folder', 'filename'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('public_copies_due').execute();
  await db.schema.alterTable('pending_writes').dropColumn('abandoned_at').execute();
  await db.schema.alterTable('pending_writes').dropColumn('blob_key').execute();
  await db.schema.alterTable('files').dropColumn('blob_key').execute();
}
