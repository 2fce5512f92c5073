import { adminNotFound, tenantNotFound } from '../errors/common-errors.ts';
import type { Who } from '../model/actors.ts';
import type { Admin, AdminStatus, NewAdmin } from '../model/admins.ts';
import { type AdministrationAction, SERVICE_CHAIN } from '../model/audit.ts';
import type { Channel } from '../model/channels.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import type { QuotaLimits } from '../model/quotas.ts';
import type { Tenant } from '../model/tenants.ts';
import { type AdministrationAudit, adminSnapshot } from './administration-audit.ts';
import { channelSnapshot, linkChange } from './channel-management.ts';

/** What an entry records of a tenant. */
const tenantSnapshot = (tenant: Tenant): Record<string, unknown> => ({
  id: tenant.id,
  name: tenant.name,
  features: tenant.features,
  quota: tenant.quota,
});

/**
 * The directory's changes made outside any admin's hand: by the operator's local CLI (`who`
 * carries its label) or by the service itself (the first start's demo). Like every change an admin
 * makes, each commits with its audit entry, in one transaction, or not at all: the operator's
 * break-glass path is in the log it cannot quietly step around (docs/audit-chain.md). A tenant's
 * creation concerns no tenant yet: it goes to the service-wide chain (SERVICE_CHAIN).
 */
export class DirectoryChanges {
  constructor(
    private readonly store: Pick<MetadataStore, 'atomically'>,
    private readonly audit: Pick<AdministrationAudit, 'append'>,
    private readonly who: Who,
  ) {}

  createTenant(input: { name: string }): Promise<Tenant> {
    return this.store.atomically(async (tx) => {
      const tenant = await tx.createTenant(input);
      await this.record(tx, SERVICE_CHAIN, 'tenant.create', { before: null, after: tenantSnapshot(tenant) });
      return tenant;
    });
  }

  addTenantFeature(tenantId: string, feature: string): Promise<Tenant> {
    return this.store.atomically(async (tx) => {
      const before = await tx.getTenant(tenantId);
      const tenant = await tx.addTenantFeature(tenantId, feature);
      await this.record(tx, tenant.id, 'tenant.update', {
        before: before === undefined ? null : tenantSnapshot(before),
        after: tenantSnapshot(tenant),
      });
      return tenant;
    });
  }

  /** The tenant's quota (docs/quotas.md): none where a limit is null. Lowering it below usage deletes nothing. */
  setTenantQuota(tenantId: string, quota: QuotaLimits): Promise<Tenant> {
    return this.store.atomically(async (tx) => {
      const before = await tx.getTenant(tenantId);
      if (before === undefined) throw tenantNotFound(tenantId);
      await tx.files.setTenantQuota(tenantId, quota);
      const tenant = { ...before, quota };
      await this.record(tx, tenant.id, 'tenant.update', { before: tenantSnapshot(before), after: tenantSnapshot(tenant) });
      return tenant;
    });
  }

  createAdmin(input: NewAdmin): Promise<Admin> {
    return this.store.atomically(async (tx) => {
      const admin = await tx.createAdmin(input);
      await this.record(tx, admin.tenantId, 'admin.create', { targetAdminId: admin.id, before: null, after: adminSnapshot(admin) });
      return admin;
    });
  }

  setAdminStatus(id: string, status: AdminStatus): Promise<Admin> {
    return this.changeAdmin(id, 'admin.update', (tx) => tx.setAdminStatus(id, status));
  }

  grantPermission(id: string, permission: string): Promise<Admin> {
    return this.changeAdmin(id, 'admin.update', (tx) => tx.grantPermission(id, permission));
  }

  revokePermission(id: string, permission: string): Promise<Admin> {
    return this.changeAdmin(id, 'admin.update', (tx) => tx.revokePermission(id, permission));
  }

  /** Its snapshot does not change (a sign-out ends messages, not the record): the entry says when. */
  signOutEverywhere(id: string): Promise<Admin> {
    return this.changeAdmin(
      id,
      'admin.sign-out',
      (tx) => tx.signOutEverywhere(id),
      (admin) => ({
        signedOutBefore: admin.signedOutBefore === null ? null : new Date(admin.signedOutBefore).toISOString(),
      }),
    );
  }

  setAdminWallet(id: string, wallet: string): Promise<Admin> {
    return this.changeAdmin(id, 'admin.update', (tx) => tx.setAdminWallet(id, wallet));
  }

  createChannel(input: { tenantId: string; name: string }): Promise<Channel> {
    return this.store.atomically(async (tx) => {
      const channel = await tx.createChannel(input);
      await this.record(tx, channel.tenantId, 'channel.create', { channelId: channel.id, before: null, after: channelSnapshot(channel) });
      return channel;
    });
  }

  renameChannel(id: string, name: string): Promise<Channel> {
    return this.changeChannel(id, (tx) => tx.renameChannel(id, name));
  }

  setChannelArchived(id: string, archived: boolean): Promise<Channel> {
    return this.changeChannel(id, (tx) => tx.setChannelArchived(id, archived));
  }

  /** Links (or unlinks) the admin; one already so changes nothing and records nothing. */
  link(channel: Channel, adminId: string, linked: boolean): Promise<void> {
    return this.store.atomically(async (tx) => {
      if ((await tx.getAdmin(adminId)) === undefined) throw adminNotFound(adminId);
      const changed = linked ? await tx.linkChannel(channel.id, adminId) : await tx.unlinkChannel(channel.id, adminId);
      if (!changed) return;
      const after = (await tx.getAdmin(adminId))!;
      await this.record(tx, channel.tenantId, linked ? 'channel.link' : 'channel.unlink', {
        channelId: channel.id,
        targetAdminId: adminId,
        ...linkChange(after.channelIds, channel.id, linked),
      });
    });
  }

  private changeAdmin(
    id: string,
    action: AdministrationAction,
    change: (tx: MetadataStore) => Promise<Admin>,
    shown: (admin: Admin) => Record<string, unknown> = adminSnapshot,
  ): Promise<Admin> {
    return this.store.atomically(async (tx) => {
      const found = await tx.getAdmin(id);
      if (found === undefined) throw adminNotFound(id);
      // Held, then read again: the record the change changes, whatever committed since the first read.
      await tx.holdTenant(found.tenantId);
      const before = (await tx.getAdmin(id))!;
      const after = await change(tx);
      await this.record(tx, after.tenantId, action, { targetAdminId: id, before: shown(before), after: shown(after) });
      return after;
    });
  }

  private changeChannel(id: string, change: (tx: MetadataStore) => Promise<Channel>): Promise<Channel> {
    return this.store.atomically(async (tx) => {
      const before = await tx.getChannel(id);
      const after = await change(tx);
      await this.record(tx, after.tenantId, 'channel.update', {
        channelId: id,
        before: before === undefined ? null : channelSnapshot(before),
        after: channelSnapshot(after),
      });
      return after;
    });
  }

  private record(
    tx: MetadataStore,
    tenantId: string,
    action: AdministrationAction,
    what: { channelId?: string; targetAdminId?: string; before: Record<string, unknown> | null; after: Record<string, unknown> | null },
  ): Promise<void> {
    return this.audit.append(tx.files, { tenantId, ...this.who, action, ...what });
  }
}
