import type { Kysely } from 'kysely';
import { channelNotFound, tenantNotFound } from '../../errors/common-errors.ts';
import type { ChannelQuotas, QuotaLimits, QuotaRecords, Usage } from '../../model/quotas.ts';
import type { Database } from '../schema.ts';

type Db = Kysely<Database>;

/** Quotas and usage (docs/quotas.md): limits on tenants and channels, usage from the channels' clocks. */
export function quotaRecords(db: Db): QuotaRecords {
  return {
    async channelUsage(channelId) {
      const row = await db
        .selectFrom('channel_clocks')
        .select(['files', 'bytes', 'kept_files', 'kept_bytes'])
        .where('channel_id', '=', channelId)
        .executeTakeFirst();
      return row === undefined ? { live: NONE, kept: NONE } : usageOf(row);
    },
    tenantUsage: (tenantId) => tenantUsageIn(db, tenantId),
    async tenantChannelsUsage(tenantId) {
      // Every channel, written to or not: one never written has no clock row yet, and holds nothing.
      const rows = await db
        .selectFrom('channels as c')
        .leftJoin('channel_clocks as k', 'k.channel_id', 'c.id')
        .select(['c.id', 'c.quota_max_bytes', 'c.quota_max_files', 'k.files', 'k.bytes', 'k.kept_files', 'k.kept_bytes'])
        .where('c.tenant_id', '=', tenantId)
        .orderBy('c.id')
        .execute();
      return rows.map((row) => ({
        channelId: row.id,
        ...usageOf({ files: row.files ?? 0, bytes: row.bytes ?? 0, kept_files: row.kept_files ?? 0, kept_bytes: row.kept_bytes ?? 0 }),
        quota: limitsOf(row.quota_max_bytes, row.quota_max_files),
      }));
    },
    channelQuotas: (channelId) => channelQuotasIn(db, channelId),
    async setChannelQuota(channelId, limits) {
      if (!(await setLimits(db, 'channels', channelId, limits))) throw channelNotFound(channelId);
    },
    async setTenantQuota(tenantId, limits) {
      if (!(await setLimits(db, 'tenants', tenantId, limits))) throw tenantNotFound(tenantId);
    },
  };
}

/** Sets the quota columns of a tenant or a channel; false when there is no such row. */
async function setLimits(db: Db, table: 'channels' | 'tenants', id: string, limits: QuotaLimits): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ quota_max_bytes: limits.maxBytes, quota_max_files: limits.maxFiles })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The channel's quota and its tenant's, in one statement (a write's commit reads it in its transaction). */
export async function channelQuotasIn(db: Db, channelId: string): Promise<ChannelQuotas> {
  const row = await db
    .selectFrom('channels as c')
    .innerJoin('tenants as t', 't.id', 'c.tenant_id')
    .select([
      't.id as tenant_id',
      'c.quota_max_bytes as channel_bytes',
      'c.quota_max_files as channel_files',
      't.quota_max_bytes as tenant_bytes',
      't.quota_max_files as tenant_files',
    ])
    .where('c.id', '=', channelId)
    .executeTakeFirst();
  if (row === undefined) throw channelNotFound(channelId);
  return toChannelQuotas(row);
}

/** The columns channelQuotasIn reads (a folded commit reads them in its first statement: folded-write-commit.ts). */
export interface QuotasRow {
  tenant_id: string;
  channel_bytes: number | string | null;
  channel_files: number | string | null;
  tenant_bytes: number | string | null;
  tenant_files: number | string | null;
}

export const toChannelQuotas = (row: QuotasRow): ChannelQuotas => ({
  tenantId: row.tenant_id,
  channel: limitsOf(row.channel_bytes, row.channel_files),
  tenant: limitsOf(row.tenant_bytes, row.tenant_files),
});

/**
 * The tenant's usage, summed over its channels' clocks. Exact inside a write's transaction once it
 * holds the tenant's chain head (every write of the tenant appends to it): no other write of the
 * tenant commits between the sum and this one's commit.
 */
export async function tenantUsageIn(db: Db, tenantId: string): Promise<Usage> {
  const row = await db
    .selectFrom('channel_clocks as k')
    .innerJoin('channels as c', 'c.id', 'k.channel_id')
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>(eb('k.files', '+', eb.ref('k.kept_files'))), eb.lit(0)).as('files'),
      eb.fn.coalesce(eb.fn.sum<number>(eb('k.bytes', '+', eb.ref('k.kept_bytes'))), eb.lit(0)).as('bytes'),
    ])
    .where('c.tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  return { files: Number(row.files), bytes: Number(row.bytes) };
}

const NONE: Usage = { files: 0, bytes: 0 };

function usageOf(row: { files: number; bytes: number; kept_files: number; kept_bytes: number }) {
  return {
    live: { files: Number(row.files), bytes: Number(row.bytes) },
    kept: { files: Number(row.kept_files), bytes: Number(row.kept_bytes) },
  };
}

// bigint columns read back as strings on PostgreSQL.
const limitsOf = (bytes: number | string | null, files: number | string | null): QuotaLimits => ({
  maxBytes: bytes === null ? null : Number(bytes),
  maxFiles: files === null ? null : Number(files),
});
