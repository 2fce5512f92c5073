import { effectivePermissions } from '../auth/permissions.ts';
import type { Admin } from '../model/admins.ts';
import type { BackupRecord } from '../model/backups.ts';
import type { Channel } from '../model/channels.ts';
import type { Tenant } from '../model/tenants.ts';
import { formatRfc3339 } from '../time/rfc3339.ts';

/**
 * What the CLI prints of the store's records with --json. The store keeps times as epoch
 * milliseconds; the CLI, like the API, writes every time as an RFC 3339 UTC string.
 */

export const tenantJson = (t: Tenant) => ({
  id: t.id,
  name: t.name,
  features: t.features,
  createdAt: formatRfc3339(t.createdAt),
  quota: t.quota,
});

export const channelJson = (c: Channel) => ({
  id: c.id,
  tenantId: c.tenantId,
  name: c.name,
  archived: c.archivedAt !== null,
  createdAt: formatRfc3339(c.createdAt),
});

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
  createdAt: formatRfc3339(a.createdAt),
  updatedAt: formatRfc3339(a.updatedAt),
  signedOutBefore: a.signedOutBefore === null ? null : formatRfc3339(a.signedOutBefore),
});

/** A backup as `backup list --json` and `backup lock --json` print it: the API's view, but for the admin's name. */
export function backupJson(b: BackupRecord) {
  return {
    timestamp: b.timestamp,
    files: b.files,
    bytes: b.bytes,
    createdBy: b.createdBy,
    origin: b.origin,
    createdAt: formatRfc3339(b.createdAt),
    lock:
      b.lock === null
        ? null
        : {
            mode: b.lock.mode,
            until: b.lock.until === null ? null : formatRfc3339(b.lock.until),
            legalHold: b.lock.legalHold,
            lockedBy: b.lock.lockedBy,
            lockedAt: formatRfc3339(b.lock.lockedAt),
          },
  };
}
