import { AppError } from '../errors/app-error.ts';
import type { Channel } from '../model/channels.ts';
import type { ChannelUsage, QuotaLimits, QuotaRecords, Usage } from '../model/quotas.ts';
import { leftUnder, totalOf } from '../model/quotas.ts';
import type { TenantRecords } from '../model/tenants.ts';
import { isOwner, requireHeld } from './admin-rules.ts';
import type { AdministrationStore } from './admin-service.ts';
import type { AdministrationAudit } from './administration-audit.ts';
import { channelSnapshot } from './channel-management.ts';
import { heldChannel, tenantView } from './tenant-views.ts';

/** What a usage answer says of one scope: its records, its quota, and the room left under it. */
export interface UsageView {
  usage: Usage & { live: Usage; kept: Usage };
  quota: QuotaLimits;
  left: { bytes: number | null; files: number | null };
}

export interface ChannelQuotaView {
  channel: Channel;
  quota: QuotaLimits;
  /** The tenant's, which the channel's stays within. */
  tenantQuota: QuotaLimits;
}

type QuotaStore = AdministrationStore &
  Pick<TenantRecords, 'getTenant'> & {
    files: Pick<QuotaRecords, 'channelUsage' | 'tenantChannelsUsage' | 'channelQuotas' | 'setChannelQuota'>;
  };

/**
 * Quotas and usage as a tenant's admins see and set them (docs/quotas.md). Any admin reads the
 * tenant's usage, and with files:read the usage of the channels it reaches; an admin with channels:manage sets a channel's quota, within
 * its tenant's, and the change commits with a 'channel.update' entry. Lowering a quota below what
 * is used refuses new bytes and deletes nothing.
 */
export class QuotaManagement {
  constructor(
    private readonly store: QuotaStore,
    private readonly audit: AdministrationAudit,
  ) {}

  /** The tenant's usage and quota, and each channel's that the actor reaches (an owner: every channel). */
  async tenantUsage(actorId: string): Promise<UsageView & { tenantId: string; channels: (UsageView & { channelId: string })[] }> {
    const view = await tenantView(this.store, actorId);
    const tenantId = view.actor.tenantId;
    const [channels, tenant] = await Promise.all([this.store.files.tenantChannelsUsage(tenantId), this.store.getTenant(tenantId)]);
    const sum = channels.reduce<ChannelUsage>(
      (all, c) => ({
        live: { files: all.live.files + c.live.files, bytes: all.live.bytes + c.live.bytes },
        kept: { files: all.kept.files + c.kept.files, bytes: all.kept.bytes + c.kept.bytes },
      }),
      { live: { files: 0, bytes: 0 }, kept: { files: 0, bytes: 0 } },
    );
    const reached = channels.filter((c) => isOwner(view.actor) || view.actor.channelIds.includes(c.channelId));
    return {
      tenantId,
      ...usageView(sum, tenant?.quota ?? { maxBytes: null, maxFiles: null }),
      channels: reached.map((c) => ({ channelId: c.channelId, ...usageView(c, c.quota) })),
    };
  }

  async channelUsage(actorId: string, ref: string): Promise<UsageView & ChannelQuotaView> {
    const { channel, quota, tenantQuota } = await this.channelQuota(actorId, ref);
    return { channel, tenantQuota, ...usageView(await this.store.files.channelUsage(channel.id), quota) };
  }

  /** Read with files:read, as the channel's files are. */
  async channelQuota(actorId: string, ref: string): Promise<ChannelQuotaView> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'files:read');
    const channel = await heldChannel(this.store, view, ref);
    const quotas = await this.store.files.channelQuotas(channel.id);
    return { channel, quota: quotas.channel, tenantQuota: quotas.tenant };
  }

  async setChannelQuota(actorId: string, ref: string, quota: QuotaLimits): Promise<ChannelQuotaView> {
    const view = await tenantView(this.store, actorId);
    requireHeld(view, 'channels:manage');
    const channel = await heldChannel(this.store, view, ref);
    return this.store.atomically(async (tx) => {
      const before = await tx.files.channelQuotas(channel.id);
      requireWithin(quota, before.tenant);
      await tx.files.setChannelQuota(channel.id, quota);
      await this.audit.append(tx.files, {
        tenantId: view.actor.tenantId,
        adminId: view.actor.id,
        action: 'channel.update',
        channelId: channel.id,
        before: { ...channelSnapshot(channel), quota: before.channel },
        after: { ...channelSnapshot(channel), quota },
      });
      return { channel, quota, tenantQuota: before.tenant };
    });
  }
}

/** A channel's quota may not promise more than its tenant's allows: each limit at most the tenant's (none: the tenant's alone). */
function requireWithin(quota: QuotaLimits, tenant: QuotaLimits): void {
  for (const [name, limit, tenantLimit] of [
    ['maxBytes', quota.maxBytes, tenant.maxBytes],
    ['maxFiles', quota.maxFiles, tenant.maxFiles],
  ] as const) {
    if (tenantLimit !== null && limit !== null && limit > tenantLimit) {
      throw new AppError(
        'VALIDATION_FAILED',
        `${name} (${limit}) must be within the tenant's quota of ${tenantLimit}: a channel's quota is at most its tenant's`,
      );
    }
  }
}

function usageView(usage: ChannelUsage, quota: QuotaLimits): UsageView {
  const total = totalOf(usage);
  return { usage: { ...total, live: usage.live, kept: usage.kept }, quota, left: leftUnder(quota, total) };
}
