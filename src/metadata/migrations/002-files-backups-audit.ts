import { type Kysely, sql } from 'kysely';

// Files, their kept versions, backups and the audit log (issue 3). See 001 for the column types.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('files')
    .addColumn('channel_id', 'text', (col) => col.notNull().references('channels.id'))
    .addColumn('folder', 'text', (col) => col.notNull())
    .addColumn('filename', 'text', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('content_type', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('files_pk', ['channel_id', 'folder', 'filename'])
    .execute();

  await db.schema
    .createTable('backups')
    .addColumn('channel_id', 'text', (col) => col.notNull().references('channels.id'))
    .addColumn('timestamp', 'text', (col) => col.notNull())
    .addColumn('files', 'bigint', (col) => col.notNull())
    .addColumn('bytes', 'bigint', (col) => col.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    // The primary key is what makes "one backup per channel per second" hold across processes.
    .addPrimaryKeyConstraint('backups_pk', ['channel_id', 'timestamp'])
    .execute();

  await db.schema
    .createTable('file_versions')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('channel_id', 'text', (col) => col.notNull().references('channels.id'))
    .addColumn('folder', 'text', (col) => col.notNull())
    .addColumn('filename', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('backup_timestamp', 'text')
    .addColumn('blob_key', 'text', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('sha256', 'text', (col) => col.notNull())
    .addColumn('content_type', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addCheckConstraint('file_versions_kind_known', sql`kind in ('backup', 'replaced', 'deleted')`)
    .addCheckConstraint('file_versions_backup_has_timestamp', sql`(kind = 'backup') = (backup_timestamp is not null)`)
    .execute();
  await db.schema
    .createIndex('file_versions_file_idx')
    .on('file_versions')
    .columns(['channel_id', 'folder', 'filename', 'created_at', 'id'])
    .execute();
  // A backup holds one version of each file; NULLs (kept versions) do not collide.
  await db.schema
    .createIndex('file_versions_backup_file_unique')
    .unique()
    .on('file_versions')
    .columns(['channel_id', 'backup_timestamp', 'folder', 'filename'])
    .execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('channel_id', 'text', (col) => col.notNull())
    .addColumn('admin_id', 'text')
    .addColumn('action', 'text', (col) => col.notNull())
    .addColumn('folder', 'text')
    .addColumn('filename', 'text')
    .addColumn('backup_timestamp', 'text')
    .addColumn('version_id', 'text')
    .addColumn('result', 'text', (col) => col.notNull())
    .addColumn('code', 'text')
    .addColumn('sha256', 'text')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('pending_writes')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('channel_id', 'text', (col) => col.notNull())
    .addColumn('folder', 'text', (col) => col.notNull())
    .addColumn('filename', 'text', (col) => col.notNull())
    // Null for a delete.
    .addColumn('sha256', 'text')
    .addColumn('size', 'bigint')
    .addColumn('content_type', 'text')
    .addColumn('started_at', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema.createIndex('audit_events_channel_idx').on('audit_events').columns(['channel_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['pending_writes', 'audit_events', 'file_versions', 'backups', 'files']) {
    await db.schema.dropTable(table).execute();
  }
}
