import type { Kysely } from 'kysely';

/**
 * Events out (docs/events.md). The audit chain is the outbox: no event is stored here, only where
 * each destination stands in each chain.
 *
 * - webhooks: a tenant's webhook, its URL and signing secrets sealed under SECRETS_KEY (a URL may
 *   carry credentials in its user info or query), its filters as JSON arrays, and `url_shown`, the
 *   URL with those redacted, which answers and the audit log show.
 * - event_streams: one row per destination and chain (a tenant's, or the service-wide one):
 *   `start_seq`, where it began (the chain's head when it was made, unless asked from the start),
 *   `scanned_seq`, how far the chain has been looked through for channels with events to send, and
 *   `low_water`, at or below which every event was delivered or dead-lettered.
 * - event_cursors: one row per destination, chain and channel ('' for events of no channel): the
 *   last seq sent, the highest seq seen for it, the retry state of the event it is on, and the
 *   lease of the instance delivering it (one delivery in flight per pair, in order).
 * - event_deliveries: the delivery log, one row per event a destination took up (its attempts, last
 *   status and error excerpt, latency): the event itself stays in the chain.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull().references('tenants.id'))
    .addColumn('created_by', 'text', (col) => col.notNull())
    .addColumn('url_sealed', 'text', (col) => col.notNull())
    .addColumn('url_shown', 'text', (col) => col.notNull())
    .addColumn('types', 'text', (col) => col.notNull())
    .addColumn('channels', 'text', (col) => col.notNull())
    .addColumn('folders', 'text', (col) => col.notNull())
    .addColumn('results', 'text', (col) => col.notNull())
    .addColumn('paused', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('secret_sealed', 'text', (col) => col.notNull())
    .addColumn('previous_secret_sealed', 'text')
    .addColumn('previous_secret_until', 'bigint')
    .addColumn('secret_rotated_at', 'bigint')
    .addColumn('revision', 'integer', (col) => col.notNull().defaultTo(1))
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('webhooks_tenant_idx').on('webhooks').columns(['tenant_id', 'created_at']).execute();
  await db.schema
    .createTable('event_streams')
    .addColumn('destination', 'text', (col) => col.notNull())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('start_seq', 'bigint', (col) => col.notNull())
    .addColumn('scanned_seq', 'bigint', (col) => col.notNull())
    .addColumn('low_water', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('event_streams_pk', ['destination', 'tenant_id'])
    .execute();
  await db.schema
    .createTable('event_cursors')
    .addColumn('destination', 'text', (col) => col.notNull())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('channel_key', 'text', (col) => col.notNull())
    .addColumn('last_seq', 'bigint', (col) => col.notNull())
    .addColumn('seen_seq', 'bigint', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('first_failure_at', 'bigint')
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('lease_token', 'text')
    .addColumn('lease_until', 'bigint')
    .addPrimaryKeyConstraint('event_cursors_pk', ['destination', 'tenant_id', 'channel_key'])
    .execute();
  await db.schema
    .createTable('event_deliveries')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('destination', 'text', (col) => col.notNull())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('channel_key', 'text', (col) => col.notNull())
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('event_id', 'text', (col) => col.notNull())
    .addColumn('type', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('attempts', 'integer', (col) => col.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('latency_ms', 'integer')
    .addColumn('next_attempt_at', 'bigint')
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('event_deliveries_event_idx')
    .on('event_deliveries')
    .columns(['destination', 'tenant_id', 'seq'])
    .unique()
    .execute();
  await db.schema.createIndex('event_deliveries_log_idx').on('event_deliveries').columns(['destination', 'id']).execute();
  // A pair reads its channel's entries after its cursor: without this, every read would walk the
  // tenant's whole chain after the cursor, past every other channel's entries.
  await db.schema
    .createIndex('audit_events_channel_chain_idx')
    .on('audit_events')
    .columns(['tenant_id', 'channel_id', 'chain_seq'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_events_channel_chain_idx').execute();
  await db.schema.dropTable('event_deliveries').execute();
  await db.schema.dropTable('event_cursors').execute();
  await db.schema.dropTable('event_streams').execute();
  await db.schema.dropTable('webhooks').execute();
}
