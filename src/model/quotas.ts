import { AppError } from '../errors/app-error.ts';

/**
 * Quotas (docs/quotas.md): limits on what a tenant and each of its channels hold, in bytes and in
 * files. What counts is the records: live files and kept versions (a locked backup's included),
 * each record once, whatever bytes the store shares between them. Uploads are refused past a
 * quota; deletes and restores never are, so that a tenant filled by a stolen key can still undo it.
 */

/** A quota; null in either: no limit on that. */
export interface QuotaLimits {
  maxBytes: number | null;
  maxFiles: number | null;
}

export interface Usage {
  files: number;
  bytes: number;
}

/** A channel's usage: its live files and the versions it keeps. */
export interface ChannelUsage {
  live: Usage;
  kept: Usage;
}

/** The limits that bound a channel's uploads: its own, and its tenant's. */
export interface ChannelQuotas {
  tenantId: string;
  channel: QuotaLimits;
  tenant: QuotaLimits;
}

export interface QuotaRecords {
  channelUsage(channelId: string): Promise<ChannelUsage>;
  /** The tenant's usage: the sum of its channels'. */
  tenantUsage(tenantId: string): Promise<Usage>;
  /** Each channel of the tenant, with its usage (none for one never written) and quota. */
  tenantChannelsUsage(tenantId: string): Promise<(ChannelUsage & { channelId: string; quota: QuotaLimits })[]>;
  channelQuotas(channelId: string): Promise<ChannelQuotas>;
  setChannelQuota(channelId: string, limits: QuotaLimits): Promise<void>;
  setTenantQuota(tenantId: string, limits: QuotaLimits): Promise<void>;
}

export const totalOf = (usage: ChannelUsage): Usage => ({
  files: usage.live.files + usage.kept.files,
  bytes: usage.live.bytes + usage.kept.bytes,
});

/** What is left under `limits` given `used` (never below zero); null: no limit. */
export function leftUnder(limits: QuotaLimits, used: Usage): { bytes: number | null; files: number | null } {
  return {
    bytes: limits.maxBytes === null ? null : Math.max(0, limits.maxBytes - used.bytes),
    files: limits.maxFiles === null ? null : Math.max(0, limits.maxFiles - used.files),
  };
}

/** Whether adding `adding` to `used` goes past `limits`, in bytes or in files. */
export function passes(limits: QuotaLimits, used: Usage, adding: Usage): boolean {
  return (
    (limits.maxBytes !== null && used.bytes + adding.bytes > limits.maxBytes) ||
    (limits.maxFiles !== null && used.files + adding.files > limits.maxFiles)
  );
}

/**
 * 507 QUOTA_EXCEEDED when adding `adding` to `used` goes past `limits`: naming the quota, what is
 * used and what is left. A distinct code from INSUFFICIENT_STORAGE (the disk is full).
 */
export function checkQuota(which: 'channel' | 'tenant', limits: QuotaLimits, used: Usage, adding: Usage): void {
  if (!passes(limits, used, adding)) return;
  const overBytes = limits.maxBytes !== null && used.bytes + adding.bytes > limits.maxBytes;
  const left = leftUnder(limits, used);
  const what = overBytes
    ? `${adding.bytes} more bytes would pass the ${which}'s quota of ${limits.maxBytes} bytes (${used.bytes} used, ${left.bytes} left)`
    : `one more file would pass the ${which}'s quota of ${limits.maxFiles} files (${used.files} used, ${left.files} left)`;
  throw new AppError('QUOTA_EXCEEDED', `${what}; delete files or ask for a larger quota. Deletes and restores are never refused`, {
    quota: { scope: which, maxBytes: limits.maxBytes, maxFiles: limits.maxFiles },
    used,
    left,
  });
}
