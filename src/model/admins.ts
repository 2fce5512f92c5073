/**
 * Admins: a wallet's holder in a tenant, an owner (no ownerAdminId) or a sub-admin. Times are epoch
 * milliseconds (UTC); wallets are stored and compared in lowercase.
 */

export type AdminStatus = 'ACTIVE' | 'SUSPENDED';

export const ADMIN_STATUSES: readonly AdminStatus[] = ['ACTIVE', 'SUSPENDED'];

export interface Admin {
  id: string; // adm_…
  tenantId: string;
  wallet: string; // lowercase 0x + 40 hex
  displayName: string;
  ownerAdminId: string | null;
  status: AdminStatus;
  permissions: string[]; // granted, sorted
  features: string[]; // admin's own, sorted
  createdAt: number;
  updatedAt: number;
  /** Messages the admin signed before this instant no longer authenticate; null: none ended so. */
  signedOutBefore: number | null;
}

export interface NewAdmin {
  tenantId: string;
  wallet: string;
  displayName: string;
  ownerAdminId?: string | null;
  permissions?: string[];
  features?: string[];
}

/** Admins' display names, for answers people read: records name admins by id. */
export interface AdminNameLookup {
  /** The display names of those of `ids` that are admins of the tenant, by id; an id that is not is left out. */
  adminDisplayNames(tenantId: string, ids: readonly string[]): Promise<Map<string, string>>;
}

export interface AdminRecords extends AdminNameLookup {
  createAdmin(input: NewAdmin): Promise<Admin>;
  getAdmin(id: string): Promise<Admin | undefined>;
  findAdminByWallet(wallet: string): Promise<Admin | undefined>;
  listAdmins(tenantId: string): Promise<Admin[]>;
  setAdminStatus(id: string, status: AdminStatus): Promise<Admin>;
  setAdminWallet(id: string, wallet: string): Promise<Admin>;
  grantPermission(id: string, permission: string): Promise<Admin>;
  revokePermission(id: string, permission: string): Promise<Admin>;
  /** Ends every message the admin has signed until now, on every instance (log out everywhere). */
  signOutEverywhere(id: string): Promise<Admin>;
}

/** Everything authentication needs about a wallet's admin, read in one go. */
export interface PrincipalRecord {
  admin: Admin;
  tenantFeatures: string[];
  channelIds: string[]; // sorted
}

export interface PrincipalLookup {
  loadPrincipalByWallet(wallet: string): Promise<PrincipalRecord | undefined>;
}
