import type { FileCatalog, Page, PageRequest } from './file-catalog-types.ts';
/**
 * What the rest of the service needs from metadata, independent of the engine behind it.
 * Times are epoch milliseconds (UTC). Wallets are stored and compared in lowercase.
 */
export type AdminStatus = 'ACTIVE' | 'SUSPENDED';
export const ADMIN_STATUSES: readonly AdminStatus[] = ['ACTIVE', 'SUSPENDED'];

/**
 * Every permission the service checks (each route names the one it needs). The store keeps no
 * other: a misspelt one would grant nothing and say nothing. An owner admin holds them all.
 */
export const ALL_PERMISSIONS = ['files:read', 'files:write', 'files:restore', 'backups:create', 'audit:read'] as const;
export type Permission = (typeof ALL_PERMISSIONS)[number];

export interface Tenant {
  id: string; // t_…
  name: string;
  features: string[];
  createdAt: number;
}

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

export interface Channel {
  id: string; // chn_…
  tenantId: string;
  name: string;
  createdAt: number;
}

/** Everything authentication needs about a wallet's admin, read in one go. */
export interface PrincipalRecord {
  admin: Admin;
  tenantFeatures: string[];
  channelIds: string[]; // sorted
}

export type NonceClaim = 'claimed' | 'already-claimed-by-this-message' | 'claimed-by-another-message';

export interface NewAdmin {
  tenantId: string;
  wallet: string;
  displayName: string;
  ownerAdminId?: string | null;
  permissions?: string[];
  features?: string[];
}

/*
 * The store is one object per concern, each holding its own input rules and SQL; consumers are
 * typed against the concerns they use, not the whole store.
 */

export interface TenantRecords {
  /** True when no tenant exists yet (first start). */
  isEmpty(): Promise<boolean>;
  createTenant(input: { name: string }): Promise<Tenant>;
  getTenant(id: string): Promise<Tenant | undefined>;
  /** Every tenant, oldest first (the operator's overview; tenants are few). */
  listTenants(): Promise<Tenant[]>;
  addTenantFeature(tenantId: string, feature: string): Promise<Tenant>;
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

/** Finding the channel a request or a command names. */
export interface ChannelLookup {
  getChannel(id: string): Promise<Channel | undefined>;
  /** Every channel of the tenant stored under that name or a look-alike spelling of it (an older release's): none, one, or look-alikes. */
  findChannelsNamed(tenantId: string, name: string): Promise<Channel[]>;
}

/** The channels an admin may use: what `GET /api/channels` lists. */
export interface LinkedChannelListing {
  /** The admin's linked channels in the tenant, by name then id, a page at a time. */
  listLinkedChannels(tenantId: string, adminId: string, page: PageRequest): Promise<Page<Channel>>;
}

export interface ChannelRecords extends ChannelLookup, LinkedChannelListing {
  createChannel(input: { tenantId: string; name: string }): Promise<Channel>;
  listChannels(tenantId: string): Promise<Channel[]>;
  /** The tenant's channel of that name (in any spelling: NFC, or another an older release stored); NAME_AMBIGUOUS when two look alike. */
  findChannelByName(tenantId: string, name: string): Promise<Channel | undefined>;
  /** The channels of that name in every tenant (names are unique per tenant only), oldest first. */
  findChannelsByName(name: string): Promise<Channel[]>;
  linkChannel(channelId: string, adminId: string): Promise<void>;
  unlinkChannel(channelId: string, adminId: string): Promise<void>;
}

/** Tenants, their admins and their channels: what the CLI and the demo seed manage. */
export interface TenantDirectory extends TenantRecords, AdminRecords, ChannelRecords {}

export interface PrincipalLookup {
  loadPrincipalByWallet(wallet: string): Promise<PrincipalRecord | undefined>;
}

export interface NonceRecords {
  /**
   * Binds a nonce (already checked to be one this service issued) to one message, by hash, so that
   * no other message can use it, and keeps that until keepUntil. The first message wins; the same
   * message again is told so.
   */
  claimNonce(nonce: string, messageHash: string, keepUntil: number): Promise<NonceClaim>;
}

export interface RevocationRecords {
  revokeMessage(messageHash: string, expiresAt: number, now: number): Promise<void>;
  /** Revocations made at or after `since` (epoch ms; 0: all) whose messages have not expired at `now`. */
  revocationsSince(since: number, now: number): Promise<{ messageHash: string; expiresAt: number }[]>;
}

/** Keys shared by every instance on one database. */
export interface ServiceSecrets {
  /** The secret named `name`, made by `create` and stored by the first caller that needs it; the same for every later one. */
  serviceSecret(name: string, create: () => string): Promise<string>;
}

/**
 * Where the demo data a first start creates stands: none begun on this database, begun by a start
 * that has not finished it (stopped midway), or complete.
 */
export type DemoSeedingState = 'none' | 'begun' | 'complete';

export interface DemoSeedingRecords {
  demoSeeding(): Promise<DemoSeedingState>;
  /** Records that the demo is being seeded, when no tenant exists and no seeding was begun: true when this call did. */
  beginDemoSeeding(): Promise<boolean>;
  /** Records that every step of the demo is done: later starts seed nothing, whatever becomes of its data. */
  completeDemoSeeding(): Promise<void>;
}

export interface NonceAndRevocationRecords extends NonceRecords, RevocationRecords {
  /** Deletes expired nonce claims and revocations; returns how many rows went. */
  purgeExpired(now: number): Promise<number>;
}

/** What authentication reads and writes: the signer's principal, revocations, nonces, and sign-outs. */
export interface AuthRecords
  extends PrincipalLookup,
    RevocationRecords,
    NonceRecords,
    ServiceSecrets,
    Pick<AdminRecords, 'signOutEverywhere'> {}

/**
 * Every method of the store and its file catalog reports the database's own failures as AppErrors:
 * SERVICE_UNAVAILABLE when it cannot be reached, INSUFFICIENT_STORAGE when its disk is full.
 */
export interface MetadataStore extends TenantDirectory, PrincipalLookup, NonceAndRevocationRecords, ServiceSecrets, DemoSeedingRecords {
  readonly engine: 'sqlite' | 'postgres';
  /** Files, versions, backups and the audit log, on the same database. */
  readonly files: FileCatalog;
  /** Resolves when the database answers a trivial query; rejects otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
