import { SHIPPED_TABLES, type ShippedTableName } from './shipped-tables.ts';

/**
 * Which rows of each shipped table are one tenant's (a tenant's own copy, docs/offsite.md): a
 * predicate in SQL, each `?` the tenant's id. Told by the tenant, channel, admin or proposal they
 * belong to, as a rebuild's --tenant filter tells them. Not in a tenant's copy: the service's own
 * rows (demo_seeding, revoked_messages, which name no tenant), the tenant's webhooks and their
 * positions (sealed under the operator's SECRETS_KEY, which the tenant's own service does not have),
 * and its own target.
 */
const OF_TENANT = 'tenant_id = ?';
const OF_ITS_CHANNELS = 'channel_id in (select id from channels where tenant_id = ?)';
const OF_ITS_ADMINS = 'admin_id in (select id from admins where tenant_id = ?)';

export const TENANT_ROWS: Partial<Record<ShippedTableName, string>> = {
  tenants: 'id = ?',
  tenant_features: OF_TENANT,
  admins: OF_TENANT,
  admin_permissions: OF_ITS_ADMINS,
  admin_features: OF_ITS_ADMINS,
  admin_wallets: OF_TENANT,
  channels: OF_TENANT,
  channel_admins: OF_TENANT,
  invitations: OF_TENANT,
  approval_policies: OF_TENANT,
  proposals: OF_TENANT,
  proposal_approvals: 'proposal_id in (select id from proposals where tenant_id = ?)',
  legacy_spellings: 'scope_id = ? or scope_id in (select id from channels where tenant_id = ?)',
  channel_clocks: OF_ITS_CHANNELS,
  clock_ticks: OF_ITS_CHANNELS,
  folder_counts: OF_ITS_CHANNELS,
  files: OF_ITS_CHANNELS,
  file_versions: OF_ITS_CHANNELS,
  backups: OF_ITS_CHANNELS,
  audit_events: OF_TENANT,
  audit_heads: OF_TENANT,
};

/** The tables a tenant's copy holds, in the order a rebuild loads them (parents first). */
export const TENANT_TABLES = SHIPPED_TABLES.filter((table) => TENANT_ROWS[table.name] !== undefined);

/** The tenant's rows of `table` as one statement with `?` placeholders, ordered by its load order. */
export function tenantRowsQuery(table: (typeof TENANT_TABLES)[number], afterSeq: number): { text: string; params: number } {
  let where = TENANT_ROWS[table.name]!;
  // The chain only grows: a round reads the entries after the last one shipped, not the whole chain.
  if (table.name === 'audit_events' && afterSeq > 0) where = `(${where}) and chain_seq > ${Math.trunc(afterSeq)}`;
  const order = ('loadOrder' in table ? table.loadOrder : table.key).map((column) => `"${column}"`).join(', ');
  return { text: `select * from "${table.name}" where ${where} order by ${order}`, params: where.split('?').length - 1 };
}
