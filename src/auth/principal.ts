import type { PrincipalRecord } from '../model/admins.ts';
import { effectivePermissions } from './permissions.ts';

/** The caller as the API shows it (contract: member `principal` of the authentication test). */
export interface Principal {
  id: string;
  type: 'ADMIN';
  displayName: string;
  tenantId: string;
  ownerAdminId: string;
  status: string;
  channelIds: string[];
  effectivePermissions: string[];
  effectiveFeatures: string[];
}

const NO_OWNER = 'N/A';

export function principalOf(record: PrincipalRecord): Principal {
  const { admin } = record;
  return {
    id: admin.id,
    type: 'ADMIN',
    displayName: admin.displayName,
    tenantId: admin.tenantId,
    ownerAdminId: admin.ownerAdminId ?? NO_OWNER,
    status: admin.status,
    channelIds: [...record.channelIds],
    effectivePermissions: effectivePermissions(admin),
    effectiveFeatures: [...new Set([...record.tenantFeatures, ...admin.features])].sort(),
  };
}

/** An owner admin: one no other admin made (its ownerAdminId reads N/A). */
export function isOwnerPrincipal(principal: Principal): boolean {
  return principal.ownerAdminId === NO_OWNER;
}

export function hasPermission(principal: Principal, permission: string): boolean {
  return principal.effectivePermissions.includes(permission);
}
