import type { Database } from '../schema.ts';

/**
 * The tables an off-site copy holds (docs/offsite.md, "What is shipped"), in the order a rebuild
 * loads a snapshot: each after the tables its foreign keys name. Every table of the metadata
 * schema is here except the transient ones, which a rebuilt service starts without: pending
 * writes (their bytes were never recorded), public copies due (a rebuild queues them again),
 * sign-in nonces and wallet challenges (short-lived proofs), the service's own secrets (a rebuild
 * makes new ones) and the shipper's own tables.
 */
export const SHIPPED_TABLES = [
  { name: 'tenants', key: ['id'] },
  { name: 'tenant_features', key: ['tenant_id', 'feature'] },
  // owner_admin_id names another admin of the tenant, made before it: created_at orders them.
  { name: 'admins', key: ['id'], loadOrder: ['created_at', 'id'] },
  { name: 'admin_permissions', key: ['admin_id', 'permission'] },
  { name: 'admin_features', key: ['admin_id', 'feature'] },
  { name: 'admin_wallets', key: ['wallet'] },
  { name: 'channels', key: ['id'] },
  { name: 'channel_admins', key: ['channel_id', 'admin_id'] },
  { name: 'invitations', key: ['id'] },
  { name: 'approval_policies', key: ['tenant_id', 'channel_id'] },
  { name: 'proposals', key: ['id'] },
  { name: 'proposal_approvals', key: ['proposal_id', 'admin_id'] },
  { name: 'revoked_messages', key: ['message_hash'] },
  { name: 'demo_seeding', key: ['name'] },
  { name: 'legacy_spellings', key: ['scope_id', 'kind', 'spelling'] },
  { name: 'channel_clocks', key: ['channel_id'] },
  { name: 'clock_ticks', key: ['channel_id', 'seq'] },
  { name: 'folder_counts', key: ['channel_id', 'folder'] },
  { name: 'files', key: ['channel_id', 'folder', 'filename'] },
  { name: 'file_versions', key: ['id'] },
  { name: 'backups', key: ['channel_id', 'timestamp'] },
  { name: 'audit_events', key: ['id'] },
  { name: 'audit_heads', key: ['tenant_id'] },
  // Where each destination stands in each chain ships with the chain: a rebuilt service goes on
  // delivering from there (at least once) instead of from each chain's start.
  { name: 'webhooks', key: ['id'] },
  { name: 'event_streams', key: ['destination', 'tenant_id'] },
  { name: 'event_cursors', key: ['destination', 'tenant_id', 'channel_key'] },
  // A tenant's own target (its secret sealed under SECRETS_KEY): a rebuilt service goes on shipping there.
  { name: 'tenant_offsite_targets', key: ['tenant_id'] },
] as const satisfies readonly { name: keyof Database; key: readonly string[]; loadOrder?: readonly string[] }[];

export type ShippedTableName = (typeof SHIPPED_TABLES)[number]['name'];

export interface ShippedTable {
  name: ShippedTableName;
  key: readonly string[];
  loadOrder?: readonly string[];
}

const BY_NAME = new Map<string, ShippedTable>(SHIPPED_TABLES.map((table) => [table.name, table]));

export function shippedTable(name: string): ShippedTable | undefined {
  return BY_NAME.get(name);
}

/** The tables whose rows name a blob, and the column that does: their bytes go with the rows. */
export const BLOB_COLUMNS: Partial<Record<ShippedTableName, { key: string; sha256: string; size: string }>> = {
  files: { key: 'blob_key', sha256: 'sha256', size: 'size' },
  file_versions: { key: 'blob_key', sha256: 'sha256', size: 'size' },
};

/** A table that exists in the schema and is deliberately not shipped (a test checks the two lists cover it). */
export const UNSHIPPED_TABLES = [
  'pending_writes',
  'public_copies_due',
  'auth_nonces',
  'wallet_challenges',
  'service_secrets',
  'offsite_changes',
  'offsite_state',
  'offsite_objects',
  'offsite_deferred_deletes',
  'offsite_generation_blobs',
  // The delivery log: what was attempted, not what anything depends on (docs/events.md).
  'event_deliveries',
  // A tenant copy's progress: a rebuilt service begins a new generation at the tenant's target.
  'tenant_offsite_state',
  'tenant_offsite_rows',
  'tenant_offsite_blobs',
  // An archive's hold of a channel's blobs: it lapses within minutes, and a rebuilt service streams nothing yet.
  'read_holds',
  // An unfinished tus upload: the client's to resume; a rebuilt service has none (docs/uploads.md).
  'resumable_uploads',
] as const satisfies readonly (keyof Database)[];
