import type { MetadataStore } from '../../model/metadata-store.ts';
import type { TenantOffsiteTarget } from '../../model/tenant-offsite.ts';

/** A tenant's off-site target as answers show it: never its secret. */
export interface TenantOffsiteView {
  tenantId: string;
  url: string;
  endpoint: string | null;
  region: string;
  forcePathStyle: boolean;
  accessKeyId: string;
  recipients: string[];
  setBy: string;
  revision: number;
  createdAt: string;
  updatedAt: string;
  status: TenantOffsiteStatus;
}

export interface TenantOffsiteStatus {
  /** pending: nothing shipped yet; ok: up to date or shipping; failing: the last round failed. */
  state: 'pending' | 'ok' | 'failing';
  /** Seconds since the oldest change the copy does not hold yet (0: none). */
  lagSeconds: number;
  /** Audit entries (changes) the copy does not hold yet. */
  changesPending: number;
  targetId: string | null;
  generation: string | null;
  segment: number | null;
  /** When the last segment reached the target. */
  lastShipped: string | null;
  bytesShipped: number;
  objectsShipped: number;
  /** The last round's failure, until a round succeeds. */
  lastError: { message: string; at: string } | null;
  /** The last test of the target (POST /api/offsite/test). */
  lastCheck: { ok: boolean; result: string; at: string } | null;
  /** The copy's head, to publish beside the identity: `offsite verify --head-file` checks it. */
  head: { target: string; generation: string; segment: number; hash: string } | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export async function tenantOffsiteView(store: MetadataStore, target: TenantOffsiteTarget, now: number): Promise<TenantOffsiteView> {
  const raw = await store.tenantOffsite.state(target.tenantId);
  const state = raw?.revision === target.revision ? raw : undefined;
  const backlog = await store.tenantOffsite.backlog(target.tenantId, state?.generation ? state.shippedSeq : 0);
  const lagSince = state?.generation ? backlog.oldestAt : target.updatedAt;
  const pending = state?.generation ? backlog.entries : backlog.headSeq;
  return {
    tenantId: target.tenantId,
    url: target.url,
    endpoint: target.endpoint,
    region: target.region,
    forcePathStyle: target.forcePathStyle,
    accessKeyId: target.accessKeyId,
    recipients: target.recipients,
    setBy: target.setBy,
    revision: target.revision,
    createdAt: new Date(target.createdAt).toISOString(),
    updatedAt: new Date(target.updatedAt).toISOString(),
    status: {
      state: state?.lastError ? 'failing' : state?.generation ? 'ok' : 'pending',
      lagSeconds: pending > 0 && lagSince !== undefined ? Math.max(0, Math.round((now - lagSince) / 100) / 10) : 0,
      changesPending: pending,
      targetId: state?.targetId ?? null,
      generation: state?.generation ?? null,
      segment: state?.segment ?? null,
      lastShipped: iso(state?.shippedAt ?? null),
      bytesShipped: state?.bytesShipped ?? 0,
      objectsShipped: state?.objectsShipped ?? 0,
      lastError: state?.lastError ? { message: state.lastError, at: iso(state.lastErrorAt ?? 0)! } : null,
      lastCheck: state?.lastCheck
        ? { ok: state.lastCheck.startsWith('ok'), result: state.lastCheck, at: iso(state.lastCheckAt ?? 0)! }
        : null,
      head:
        state?.targetId && state.generation !== null && state.segment !== null && state.segmentHash !== null
          ? { target: state.targetId, generation: state.generation, segment: state.segment, hash: state.segmentHash }
          : null,
    },
  };
}

/** The target as its audit entry records it: where the copy goes and to whom it is encrypted, never the secret. */
export function targetSnapshot(
  target: Pick<TenantOffsiteTarget, 'url' | 'endpoint' | 'region' | 'forcePathStyle' | 'accessKeyId' | 'recipients'> & {
    revision?: number;
  },
): Record<string, unknown> {
  return {
    url: target.url,
    endpoint: target.endpoint,
    region: target.region,
    forcePathStyle: target.forcePathStyle,
    accessKeyId: target.accessKeyId,
    recipients: target.recipients,
    ...(target.revision === undefined ? {} : { revision: target.revision }),
  };
}
