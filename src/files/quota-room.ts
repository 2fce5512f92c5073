import { checkQuota, passes, type QuotaLimits, type QuotaRecords, totalOf, type Usage } from '../model/quotas.ts';

/** The room an upload has under its channel's and its tenant's quotas (docs/quotas.md). */
export interface QuotaRoom {
  /** The most bytes the upload may store. */
  bytes: number;
  /** Throws QUOTA_EXCEEDED, naming the quota an upload of `bytes` would pass. */
  refuse(bytes: number): never;
}

const limited = (limits: QuotaLimits) => limits.maxBytes !== null || limits.maxFiles !== null;

type Catalog = Pick<QuotaRecords, 'channelQuotas' | 'channelUsage' | 'tenantUsage'>;

type Bounding = { which: 'channel' | 'tenant'; limits: QuotaLimits; used: Usage };

/**
 * What unfinished resumable uploads reserve in a channel and its tenant (docs/uploads.md): counted
 * as used when an upload asks for room, never by restores, which no quota refuses.
 */
export type Reservations = (tenantId: string) => Promise<{ channel: Usage; tenant: Usage }>;

const plus = (a: Usage, b: Usage): Usage => ({ files: a.files + b.files, bytes: a.bytes + b.bytes });

/** The quotas that bound a channel's writes (its own, then its tenant's) with their usage now; none unset. */
async function boundingQuotas(catalog: Catalog, channelId: string, reservations?: Reservations): Promise<Bounding[]> {
  const quotas = await catalog.channelQuotas(channelId);
  const scopes: Bounding[] = [];
  if (!limited(quotas.channel) && !limited(quotas.tenant)) return scopes;
  const reserved = reservations === undefined ? { channel: NOTHING, tenant: NOTHING } : await reservations(quotas.tenantId);
  if (limited(quotas.channel))
    scopes.push({ which: 'channel', limits: quotas.channel, used: plus(totalOf(await catalog.channelUsage(channelId)), reserved.channel) });
  if (limited(quotas.tenant))
    scopes.push({ which: 'tenant', limits: quotas.tenant, used: plus(await catalog.tenantUsage(quotas.tenantId), reserved.tenant) });
  return scopes;
}

const NOTHING: Usage = { files: 0, bytes: 0 };

/**
 * Null when neither the channel nor its tenant has a quota. Otherwise the room left, after
 * refusing (QUOTA_EXCEEDED) an upload of `declaredBytes` that goes past either now: before any
 * byte of it is stored. Read outside the commit, so a race may still lose at the commit's own check.
 * With `reservations`, what unfinished resumable uploads reserve counts as used.
 */
export async function roomUnderQuotas(
  catalog: Catalog,
  channelId: string,
  declaredBytes: number,
  reservations?: Reservations,
): Promise<QuotaRoom | null> {
  const scopes = await boundingQuotas(catalog, channelId, reservations);
  if (scopes.length === 0) return null;
  const check = (bytes: number) => {
    for (const scope of scopes) checkQuota(scope.which, scope.limits, scope.used, { files: 1, bytes });
  };
  check(declaredBytes);
  const bytes = Math.min(
    ...scopes.map((scope) =>
      scope.limits.maxBytes === null ? Number.MAX_SAFE_INTEGER : Math.max(0, scope.limits.maxBytes - scope.used.bytes),
    ),
  );
  return {
    bytes,
    refuse(over) {
      check(over);
      throw new Error(`an upload of ${over} bytes passed no quota, yet was refused by one`);
    },
  };
}

/** A quota that a restore goes past: it runs anyway, and says so in its plan (docs/quotas.md). */
export interface QuotaNotice {
  scope: 'channel' | 'tenant';
  maxBytes: number | null;
  maxFiles: number | null;
  used: Usage;
  /** Usage once the restore has run. */
  after: Usage;
}

/** The first quota (the channel's, then its tenant's) that adding `adds` goes past; undefined when none. */
export async function quotaPassedBy(catalog: Catalog, channelId: string, adds: Usage): Promise<QuotaNotice | undefined> {
  if (adds.files === 0 && adds.bytes === 0) return undefined;
  for (const { which, limits, used } of await boundingQuotas(catalog, channelId)) {
    if (passes(limits, used, adds)) {
      const after = { files: used.files + adds.files, bytes: used.bytes + adds.bytes };
      return { scope: which, maxBytes: limits.maxBytes, maxFiles: limits.maxFiles, used, after };
    }
  }
  return undefined;
}
