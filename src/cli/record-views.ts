import { effectivePermissions } from '../auth/permissions.ts';
import type { Admin, Channel, Tenant } from '../metadata/types.ts';

/**
 * What the CLI prints of the store's records with --json. The store keeps times as epoch
 * milliseconds; the CLI, like the API, writes every time as an RFC 3339 UTC string.
 */
export const isoTime = (epochMs: number): string => new Date(epochMs).toISOString();

export const tenantJson = (t: Tenant) => ({ id: t.id, name: t.name, features: t.features, createdAt: isoTime(t.createdAt) });

export const channelJson = (c: Channel) => ({ id: c.id, tenantId: c.tenantId, name: c.name, createdAt: isoTime(c.createdAt) });

export const adminJson = (a: Admin) => ({
  id: a.id,
  tenantId: a.tenantId,
  wallet: a.wallet,
  displayName: a.displayName,
  ownerAdminId: a.ownerAdminId,
  status: a.status,
  permissions: a.permissions,
  effectivePermissions: effectivePermissions(a),
  features: a.features,
  createdAt: isoTime(a.createdAt),
  updatedAt: isoTime(a.updatedAt),
  signedOutBefore: a.signedOutBefore === null ? null : isoTime(a.signedOutBefore),
});
