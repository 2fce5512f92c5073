import type { QuotaLimits } from '../../client/index.ts';
import { formatBytes } from '../ui/format.ts';
import { useLoad } from '../ui/use-load.ts';
import type { ViewContext } from './context.ts';

/**
 * What the channel holds against its quota (docs/quotas.md): live files and kept versions, each
 * record once. The tenant's quota bounds it too. Nothing is shown while it loads or when it cannot
 * be read: the folders are what this page is for.
 */
export function ChannelUsageLine({ ctx, channel }: { ctx: ViewContext; channel: string }) {
  const usage = useLoad(() => ctx.client.channelUsage(channel), channel);
  if (usage.data === undefined) return null;
  const { usage: used, quota, tenantQuota } = usage.data;
  const limit = tightest(quota, tenantQuota);
  const full = limit.maxBytes !== null && used.bytes >= limit.maxBytes;
  return (
    <p class={full ? 'usage usage-full' : 'usage muted'} data-testid="channel-usage">
      {used.files} {used.files === 1 ? 'file' : 'files'}, {formatBytes(used.bytes)}
      {limit.maxBytes !== null && <> of {formatBytes(limit.maxBytes)}</>}
      {limit.maxFiles !== null && <> ({limit.maxFiles} files at most)</>}
      <span class="usage-detail">
        {' '}
        · live {used.live.files}, kept versions {used.kept.files}
      </span>
      {full && <strong> · Full: uploads are refused until files are deleted; restores still run.</strong>}
    </p>
  );
}

/** The limits that bind first: the channel's own or its tenant's, whichever is lower. */
function tightest(channel: QuotaLimits, tenant: QuotaLimits): QuotaLimits {
  const lower = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
  return { maxBytes: lower(channel.maxBytes, tenant.maxBytes), maxFiles: lower(channel.maxFiles, tenant.maxFiles) };
}
