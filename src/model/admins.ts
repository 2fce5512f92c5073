/**
 * Admins: a wallet's holder in a tenant, an owner (no ownerAdminId) or a sub-admin. Times are epoch
 * milliseconds (UTC); wallets are stored and compared in lowercase.
 */

export type AdminStatus = 'ACTIVE' | 'SUSPENDED';

export const ADMIN_STATUSES: readonly AdminStatus[] = ['ACTIVE', 'SUSPENDED'];

export interface Admin {
  id: string; // adm_…
  tenantId: string;
  /** The admin's first wallet still held (lowercase 0x + 40 hex); a removed admin's is a placeholder. */
  wallet: string;
  /** Every wallet of the admin, oldest first, lowercase; none once removed. */
  wallets: string[];
  /** The channels linked to the admin, sorted. */
  channelIds: string[];
  displayName: string;
  ownerAdminId: string | null;
  status: AdminStatus;
  permissions: string[]; // granted, sorted
  features: string[]; // admin's own, sorted
  createdAt: number;
  updatedAt: number;
  /** Messages the admin signed before this instant no longer authenticate; null: none ended so. */
  signedOutBefore: number | null;
  /** When the admin was removed; its record stays for the audit log. Null: it was not. */
  removedAt: number | null;
  /** Raised by every change of the admin, its permissions, wallets or channels: its ETag. */
  revision: number;
}

/** A removed admin is shown so; the status column keeps SUSPENDED (see migration 016). */
export type AdminState = AdminStatus | 'REMOVED';

export const stateOf = (admin: Pick<Admin, 'status' | 'removedAt'>): AdminState => (admin.removedAt === null ? admin.status : 'REMOVED');

/** A change of an admin by the self-service API; a member left out is left as it is. */
export interface AdminUpdate {
  displayName?: string | undefined;
  /** Replaces the granted set. */
  permissions?: readonly string[] | undefined;
  status?: AdminStatus | undefined;
  /** The admin it is below; null makes it an owner. */
  ownerAdminId?: string | null | undefined;
}

/** One wallet of an admin. */
export interface AdminWallet {
  address: string; // lowercase
  addedAt: number;
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

/**
 * The self-service changes of an admin (docs/administration.md). Each runs in one transaction
 * that holds the tenant's admins still, and refuses (changing nothing) when it would leave the tenant
 * without an active owner holding a wallet (LAST_OWNER) or an admin without a wallet (LAST_WALLET);
 * with `ifRevision`, one whose admin has another revision now (PRECONDITION_FAILED).
 */
export interface AdminChanges {
  /**
   * Inside a transaction (MetadataStore.atomically): holds the tenant's admins still until it ends,
   * as each change below does, so that what is read after it (an admin's record before a change, for
   * its audit entry) is what the change then changes.
   */
  holdTenant(tenantId: string): Promise<void>;
  updateAdmin(id: string, change: AdminUpdate, ifRevision?: number): Promise<Admin>;
  /**
   * Removes the admin (its record stays, status REMOVED, with no wallet and no channel) and moves
   * the admins below it to `successorId`. Answers the ids of the admins moved.
   */
  removeAdmin(id: string, successorId: string, ifRevision?: number): Promise<{ admin: Admin; moved: string[] }>;
  listAdminWallets(id: string): Promise<AdminWallet[]>;
  addAdminWallet(id: string, wallet: string): Promise<AdminWallet>;
  removeAdminWallet(id: string, wallet: string): Promise<void>;
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
