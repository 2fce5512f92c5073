import { effectivePermissions } from '../../../auth/permissions.ts';
import { toEip55 } from '../../../auth/siwe/siwe-message.ts';
import type { AdminNameMap } from '../../../files/admin-names.ts';
import { type Admin, type AdminWallet, stateOf } from '../../../model/admins.ts';
import type { AuditEvent } from '../../../model/audit.ts';
import { type Invitation, invitationState } from '../../../model/invitations.ts';
import { formatRfc3339 } from '../../../time/rfc3339.ts';
import { auditView } from '../../channels/support/views.ts';

/** Administration records as the API shows them (schemas/administration.ts). */
const iso = formatRfc3339;

/** An admin with the principal's members as the contract shows them, plus its wallets and creation time. */
export const adminView = (admin: Admin, tenantFeatures: readonly string[]) => ({
  id: admin.id,
  type: 'ADMIN' as const,
  displayName: admin.displayName,
  tenantId: admin.tenantId,
  ownerAdminId: admin.ownerAdminId ?? 'N/A',
  status: stateOf(admin),
  channelIds: admin.channelIds,
  effectivePermissions: admin.removedAt === null ? effectivePermissions(admin) : [],
  effectiveFeatures: [...new Set([...tenantFeatures, ...admin.features])].sort(),
  wallets: admin.wallets.map(toEip55),
  createdAt: iso(admin.createdAt),
});

/** The record's version for If-Match (its revision: every change raises it). */
export const adminEtag = (admin: Admin): string => `"r${admin.revision}"`;

/** The revision an If-Match names; a value this service never sent matches no revision. */
export function revisionOf(ifMatch: string | undefined): number | undefined {
  if (ifMatch === undefined || ifMatch.trim() === '*') return undefined;
  const match = /^(?:W\/)?"r(\d{1,15})"$/.exec(ifMatch.trim());
  return match ? Number(match[1]) : -1;
}

export const walletView = (w: AdminWallet) => ({ address: toEip55(w.address), addedAt: iso(w.addedAt) });

export const invitationView = (i: Invitation, now: number) => ({
  id: i.id,
  inviterAdminId: i.inviterAdminId,
  displayName: i.displayName,
  wallet: i.wallet === null ? null : toEip55(i.wallet),
  permissions: i.permissions,
  channelIds: i.channelIds,
  state: invitationState(i, now),
  createdAt: iso(i.createdAt),
  expiresAt: iso(i.expiresAt),
  acceptedAdminId: i.acceptedAdminId,
});

/** A channel's event as the channel's log shows it, with the channel, the admin acted upon and the change. */
export const tenantAuditView = (e: AuditEvent, names: AdminNameMap) => ({
  ...auditView(e, names),
  channelId: e.channelId,
  targetAdminId: e.targetAdminId,
  change: e.change,
});
