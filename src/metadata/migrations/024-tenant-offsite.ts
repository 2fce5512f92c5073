import type { Kysely } from 'kysely';

/**
 * A tenant's own off-site copy (docs/offsite.md, "A tenant's own copy").
 *
 * - tenant_offsite_targets: the tenant's target, at most one: its s3:// URL, endpoint, region,
 *   path style, access key id, the secret key sealed under SECRETS_KEY, and its age recipients (a
 *   JSON array). Shipped with the operator's copy, so that a rebuilt service goes on shipping there.
 * - tenant_offsite_state: how far shipping there has come (the target's id, the generation and
 *   segment, the plaintext hash of the last segment, the tenant's audit seq it reached), its last
 *   error and check, and the lease of the instance that ships it. Not shipped: a rebuilt service
 *   begins a new generation at the same target.
 * - tenant_offsite_rows: the hash of each row of the tenant as last shipped there, by table and
 *   key: a round ships the difference between the tenant's rows now and these.
 * - tenant_offsite_blobs: the blobs already at the target, each sent once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tenant_offsite_targets')
    .addColumn('tenant_id', 'text', (col) => col.primaryKey().references('tenants.id'))
    .addColumn('url', 'text', (col) => col.notNull())
    .addColumn('endpoint', 'text')
    .addColumn('region', 'text', (col) => col.notNull())
    .addColumn('force_path_style', 'integer', (col) => col.notNull())
    .addColumn('access_key_id', 'text', (col) => col.notNull())
    .addColumn('secret_sealed', 'text', (col) => col.notNull())
    .addColumn('recipients', 'text', (col) => col.notNull())
    .addColumn('set_by', 'text', (col) => col.notNull())
    .addColumn('revision', 'integer', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('tenant_offsite_state')
    .addColumn('tenant_id', 'text', (col) => col.primaryKey())
    .addColumn('revision', 'integer', (col) => col.notNull())
    .addColumn('target_id', 'text')
    .addColumn('generation', 'text')
    .addColumn('generation_at', 'bigint')
    .addColumn('schema_version', 'text')
    .addColumn('segment', 'integer')
    .addColumn('segment_hash', 'text')
    .addColumn('shipped_seq', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('shipped_at', 'bigint')
    .addColumn('scanned_at', 'bigint')
    .addColumn('bytes_shipped', 'bigint', (col) => col.notNull().defaultTo(0))
    .addColumn('objects_shipped', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'bigint')
    .addColumn('failures', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('last_check', 'text')
    .addColumn('last_check_at', 'bigint')
    .addColumn('lease_token', 'text')
    .addColumn('lease_until', 'bigint')
    .execute();
  await db.schema
    .createTable('tenant_offsite_rows')
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('tbl', 'text', (col) => col.notNull())
    .addColumn('row_key', 'text', (col) => col.notNull())
    .addColumn('row_hash', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('tenant_offsite_rows_pk', ['tenant_id', 'tbl', 'row_key'])
    .execute();
  await db.schema
    .createTable('tenant_offsite_blobs')
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('blob_key', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('tenant_offsite_blobs_pk', ['tenant_id', 'blob_key'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tenant_offsite_blobs').execute();
  await db.schema.dropTable('tenant_offsite_rows').execute();
  await db.schema.dropTable('tenant_offsite_state').execute();
  await db.schema.dropTable('tenant_offsite_targets').execute();
}
