import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Off-site copies (docs/offsite.md). Three tables of the shipper's own, none of which is shipped:
 *
 * - offsite_changes: every change of a shipped table, captured by a trigger in the change's own
 *   transaction (src/offsite/change-capture.ts installs the triggers while OFFSITE_URL is set), so
 *   that the API, the operator's CLI and a migration are captured alike. `seq` orders the changes
 *   of one row (a row's lock orders them); on PostgreSQL `xid` (the transaction's id) tells the
 *   shipper which changes can no longer be joined by one that commits before them. `segment` marks
 *   the changes a segment being shipped holds, so that a retry ships the very same set.
 * - offsite_state: one row, the shipper's position: the target, the generation and the last
 *   segment shipped (its plaintext hash, which the next one names), the lease of the instance that
 *   ships, and what `offsite status` prints.
 * - offsite_objects: every object written to the target, with its ciphertext's sha256 and size:
 *   what the scheduled check compares without decrypting, and what retention asks before it
 *   removes a blob.
 * - offsite_generation_blobs: which blobs each generation's segments name, so that OFFSITE_KEEP_DAYS
 *   removes a blob's object only once no generation kept names it.
 * - offsite_deferred_deletes: blobs retention let go of before the target held them; retention
 *   removes them on a later run, once the target does (or once nothing still to ship names them).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('offsite_changes')
    .addColumn('seq', postgres ? 'bigserial' : 'integer', (col) => (postgres ? col.primaryKey() : col.primaryKey().autoIncrement()))
    .addColumn('table_name', 'text', (col) => col.notNull())
    .addColumn('op', 'text', (col) => col.notNull())
    .addColumn('old_key', 'text')
    .addColumn('row', 'text')
    .addColumn('xid', 'bigint')
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addColumn('segment', 'bigint')
    .execute();
  await db.schema
    .createTable('offsite_state')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('target', 'text', (col) => col.notNull())
    .addColumn('target_id', 'text', (col) => col.notNull())
    .addColumn('generation', 'text')
    .addColumn('generation_at', 'bigint')
    .addColumn('schema_version', 'text')
    .addColumn('segment', 'bigint')
    .addColumn('segment_hash', 'text')
    .addColumn('segment_at', 'bigint')
    .addColumn('audit_heads', 'text')
    .addColumn('pending_segment', 'bigint')
    .addColumn('pending_at', 'bigint')
    .addColumn('capture_from', 'bigint')
    .addColumn('lease_token', 'text')
    .addColumn('lease_until', 'bigint')
    .addColumn('bytes_shipped', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('objects_shipped', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'bigint')
    .addColumn('last_check_at', 'bigint')
    .addColumn('last_check', 'text')
    .addColumn('last_drill_at', 'bigint')
    .addColumn('last_drill', 'text')
    .execute();
  await db.schema
    .createTable('offsite_objects')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('generation', 'text')
    .addColumn('blob_key', 'text')
    .addColumn('cipher_sha256', 'text', (col) => col.notNull())
    .addColumn('size', 'bigint', (col) => col.notNull())
    .addColumn('shipped_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('offsite_generation_blobs')
    .addColumn('generation', 'text', (col) => col.notNull())
    .addColumn('blob_key', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('offsite_generation_blobs_pk', ['generation', 'blob_key'])
    .execute();
  await db.schema.createIndex('offsite_generation_blobs_key_idx').on('offsite_generation_blobs').column('blob_key').execute();
  await db.schema
    .createTable('offsite_deferred_deletes')
    .addColumn('blob_key', 'text', (col) => col.primaryKey())
    .addColumn('deferred_at', 'bigint', (col) => col.notNull())
    .execute();
  // Retention asks by blob key whether the target holds it.
  await db.schema.createIndex('offsite_objects_blob_key_idx').on('offsite_objects').column('blob_key').execute();
  await db.schema.createIndex('offsite_changes_segment_idx').on('offsite_changes').column('segment').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('offsite_deferred_deletes').execute();
  await db.schema.dropTable('offsite_generation_blobs').execute();
  await db.schema.dropTable('offsite_objects').execute();
  await db.schema.dropTable('offsite_state').execute();
  await db.schema.dropTable('offsite_changes').execute();
}
