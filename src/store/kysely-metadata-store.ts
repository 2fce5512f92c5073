import { sql, type Kysely } from 'kysely';
import { changePermission, insertAdmin, selectAdmin, selectAdminsOfTenant, updateAdmin } from './admin-queries.ts';
import { deleteChannelLink, insertChannel, insertChannelLink, selectChannel, selectChannelsOfTenant } from './channel-queries.ts';
import { canBeStoredKey, normalizeWallet, requireLabel, requireLabels, requireName, requireStatus } from './input-validation.ts';
import { claimNonce, deleteExpired, insertNonce, revocationExists, upsertRevocation } from './nonce-and-revocation-queries.ts';
import { selectPrincipalByWallet } from './principal-query.ts';
import type { FileCatalog } from './file-catalog-types.ts';
import { KyselyFileCatalog } from './kysely-file-catalog.ts';
import type { Database, Engine } from './schema.ts';
import { hasNoTenant, insertTenant, insertTenantFeature, selectTenant } from './tenant-queries.ts';
import type { Admin, AdminStatus, Channel, MetadataStore, NewAdmin, NonceClaim, PrincipalRecord, Tenant } from './types.ts';

/**
 * The one MetadataStore: input rules here, SQL in the *-queries modules, the same for both engines.
 * Every method is async so that a validation failure arrives as a rejection, like any other.
 */
export class KyselyMetadataStore implements MetadataStore {
  private closing: Promise<void> | undefined;
  readonly files: FileCatalog;

  constructor(
    private readonly db: Kysely<Database>,
    readonly engine: Engine,
    private readonly now: () => number = Date.now,
  ) {
    this.files = new KyselyFileCatalog(db);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  close(): Promise<void> {
    // Ending a pg pool twice throws; callers (CLI finally blocks, test hooks) may close twice.
    this.closing ??= this.db.destroy();
    return this.closing;
  }

  async isEmpty(): Promise<boolean> {
    return hasNoTenant(this.db);
  }

  async createTenant(input: { name: string }): Promise<Tenant> {
    return insertTenant(this.db, requireName(input.name, 'Tenant name'), this.now());
  }

  async getTenant(id: string): Promise<Tenant | undefined> {
    return selectTenant(this.db, id);
  }

  async addTenantFeature(tenantId: string, feature: string): Promise<Tenant> {
    return insertTenantFeature(this.db, tenantId, requireLabel(feature, 'Feature'));
  }

  async createAdmin(input: NewAdmin): Promise<Admin> {
    const valid = {
      tenantId: input.tenantId,
      wallet: normalizeWallet(input.wallet),
      displayName: requireName(input.displayName, 'Display name'),
      ownerAdminId: input.ownerAdminId ?? null,
      permissions: requireLabels(input.permissions, 'Permission'),
      features: requireLabels(input.features, 'Feature'),
    };
    return insertAdmin(this.db, valid, this.now());
  }

  async getAdmin(id: string): Promise<Admin | undefined> {
    return selectAdmin(this.db, { id });
  }

  async findAdminByWallet(wallet: string): Promise<Admin | undefined> {
    return selectAdmin(this.db, { wallet: normalizeWallet(wallet) });
  }

  async listAdmins(tenantId: string): Promise<Admin[]> {
    return selectAdminsOfTenant(this.db, tenantId);
  }

  async setAdminStatus(id: string, status: AdminStatus): Promise<Admin> {
    return updateAdmin(this.db, id, { status: requireStatus(status) }, this.now());
  }

  async setAdminWallet(id: string, wallet: string): Promise<Admin> {
    return updateAdmin(this.db, id, { wallet: normalizeWallet(wallet) }, this.now());
  }

  async grantPermission(id: string, permission: string): Promise<Admin> {
    return changePermission(this.db, id, requireLabel(permission, 'Permission'), true, this.now());
  }

  async revokePermission(id: string, permission: string): Promise<Admin> {
    return changePermission(this.db, id, requireLabel(permission, 'Permission'), false, this.now());
  }

  async createChannel(input: { tenantId: string; name: string }): Promise<Channel> {
    return insertChannel(this.db, input.tenantId, requireName(input.name, 'Channel name'), this.now());
  }

  async getChannel(id: string): Promise<Channel | undefined> {
    if (!canBeStoredKey(id)) return undefined;
    return selectChannel(this.db, { id });
  }

  async findChannelByName(tenantId: string, name: string): Promise<Channel | undefined> {
    if (!canBeStoredKey(name)) return undefined;
    return selectChannel(this.db, { tenantId, name: name.trim() });
  }

  async listChannels(tenantId: string): Promise<Channel[]> {
    return selectChannelsOfTenant(this.db, tenantId);
  }

  async linkChannel(channelId: string, adminId: string): Promise<void> {
    return insertChannelLink(this.db, channelId, adminId);
  }

  async unlinkChannel(channelId: string, adminId: string): Promise<void> {
    return deleteChannelLink(this.db, channelId, adminId);
  }

  async loadPrincipalByWallet(wallet: string): Promise<PrincipalRecord | undefined> {
    return selectPrincipalByWallet(this.db, normalizeWallet(wallet));
  }

  async saveNonce(nonce: string, expiresAt: number): Promise<void> {
    return insertNonce(this.db, nonce, expiresAt);
  }

  async claimNonce(nonce: string, messageHash: string, now: number, keepUntil: number): Promise<NonceClaim> {
    return claimNonce(this.db, nonce, messageHash, now, keepUntil);
  }

  async revokeMessage(messageHash: string, expiresAt: number): Promise<void> {
    return upsertRevocation(this.db, messageHash, expiresAt);
  }

  async isMessageRevoked(messageHash: string): Promise<boolean> {
    return revocationExists(this.db, messageHash);
  }

  async purgeExpired(now: number): Promise<number> {
    return deleteExpired(this.db, now);
  }
}
