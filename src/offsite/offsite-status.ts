import type { MetadataStore } from '../model/metadata-store.ts';
import type { OffsiteState } from '../model/offsite.ts';
import { formatRfc3339 } from '../time/rfc3339.ts';
import type { CopyHead } from './copy-reader.ts';

export interface OffsiteStatus {
  /** The target shipped to (its description), or null when this database never shipped. */
  target: string | null;
  /** Whether the database captures changes now (a service started with OFFSITE_URL installed the capture). */
  capturing: boolean;
  lagSeconds: number;
  changesPending: number;
  bytesShipped: number;
  objectsShipped: number;
  generation: string | null;
  segment: number | null;
  /** The oldest generation whose snapshot is at the target: the earliest instant a rebuild reaches. */
  oldestSnapshot: string | null;
  head: CopyHead | null;
  lastError: { at: string; message: string } | null;
  lastCheck: { at: string; result: string } | null;
  lastDrill: { at: string; result: string } | null;
}

/**
 * Seconds the copy is behind: since the oldest change not yet shipped, or, while nothing of the
 * generation is at the target (its snapshot not shipped; `notStarted`: shipping never began), since it began.
 */
export function lagSeconds(
  state: OffsiteState | undefined,
  oldestAt: number | null,
  now: number,
  notStarted: number | null = null,
): number {
  const since =
    state === undefined ? (notStarted ?? oldestAt) : state.segment === null ? (state.generationAt ?? notStarted ?? now) : oldestAt;
  return since === null ? 0 : Math.max(0, (now - since) / 1000);
}

/** What `offsite status` prints (docs/offsite.md, "Status"): read from the database alone, no target needed. */
export async function offsiteStatus(store: MetadataStore, now = Date.now()): Promise<OffsiteStatus> {
  const state = await store.offsite.state();
  const { oldestAt, changes } = await store.offsite.backlog();
  const capturing = await store.offsite.captureInstalled();
  let oldestSnapshot: string | null = null;
  for await (const object of store.offsite.objects('segment')) {
    if (object.name.endsWith('/000000000000.age')) {
      oldestSnapshot = object.generation;
      break;
    }
  }
  const at = (value: number | null) => (value === null ? '' : formatRfc3339(value));
  return {
    target: state?.target ?? null,
    capturing,
    lagSeconds: lagSeconds(state, oldestAt, now),
    changesPending: changes,
    bytesShipped: state?.bytesShipped ?? 0,
    objectsShipped: state?.objectsShipped ?? 0,
    generation: state?.generation ?? null,
    segment: state?.segment ?? null,
    oldestSnapshot,
    head:
      state && state.generation !== null && state.segment !== null && state.segmentHash !== null
        ? { target: state.targetId, generation: state.generation, segment: state.segment, hash: state.segmentHash }
        : null,
    lastError: state?.lastError ? { at: at(state.lastErrorAt), message: state.lastError } : null,
    lastCheck: state?.lastCheck ? { at: at(state.lastCheckAt), result: state.lastCheck } : null,
    lastDrill: state?.lastDrill ? { at: at(state.lastDrillAt), result: state.lastDrill } : null,
  };
}
