import type { Kysely } from 'kysely';

/**
 * resumable_uploads (src/model/uploads.ts, docs/uploads.md): a tus upload's state, so that any
 * instance resumes what another started, after a restart too: its owner and target, its length
 * and the bytes stored so far, when it expires, and where those bytes are (the S3 multipart
 * upload's id, each stored part's size and ETag as JSON, the tail kept as an object). Not shipped
 * off-site: an unfinished upload is the client's to resume, and a rebuilt service has none.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('resumable_uploads')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('channel_id', 'text', (col) => col.notNull())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('admin_id', 'text', (col) => col.notNull())
    .addColumn('folder', 'text', (col) => col.notNull())
    .addColumn('filename', 'text', (col) => col.notNull())
    .addColumn('content_type', 'text', (col) => col.notNull())
    .addColumn('metadata', 'text', (col) => col.notNull())
    .addColumn('precondition', 'text', (col) => col.notNull())
    .addColumn('length', 'bigint')
    .addColumn('offset', 'bigint', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('multipart_id', 'text')
    .addColumn('parts', 'text', (col) => col.notNull())
    .addColumn('tail_key', 'text')
    .addColumn('tail_size', 'bigint', (col) => col.notNull())
    .addColumn('state', 'text', (col) => col.notNull())
    .addColumn('etag', 'text')
    .addColumn('failure', 'text')
    .execute();
  await db.schema.createIndex('resumable_uploads_admin').on('resumable_uploads').columns(['admin_id', 'expires_at']).execute();
  await db.schema.createIndex('resumable_uploads_channel').on('resumable_uploads').columns(['channel_id', 'state']).execute();
  await db.schema.createIndex('resumable_uploads_tenant').on('resumable_uploads').columns(['tenant_id', 'state']).execute();
  await db.schema.createIndex('resumable_uploads_expiry').on('resumable_uploads').columns(['expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('resumable_uploads').execute();
}
