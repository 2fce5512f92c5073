import type { Logger } from '../logging/logger.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import type { OffsiteTarget } from './target/offsite-target.ts';

const DAY_MS = 86_400_000;

/**
 * OFFSITE_KEEP_DAYS (docs/offsite.md, "What is kept"): removes whole generations from the target,
 * oldest first, once the generation after each is older than the days kept. Never the generation
 * being shipped; never before a newer snapshot has passed a check or a drill (a copy that cannot be
 * read must not be the only one left); never an object still under OFFSITE_LOCK_DAYS; and a blob
 * only once no kept generation, record or queued change names it, so the bytes of a locked backup
 * or a legal hold, which every newer snapshot names, stay.
 */
export async function pruneGenerations(options: {
  store: MetadataStore;
  target: OffsiteTarget;
  keepDays: number;
  lockDays: number;
  logger: Logger;
  now: number;
}): Promise<{ generations: string[]; objects: number }> {
  const { store, target, now } = options;
  const removed = { generations: [] as string[], objects: 0 };
  if (options.keepDays === 0) return removed;
  const state = await store.offsite.state();
  const generations = (await store.offsite.generations())
    .filter((g): g is { generation: string; snapshotAt: number; lastAt: number } => g.snapshotAt !== null)
    .sort((a, b) => a.snapshotAt - b.snapshotAt);
  const newest = generations.at(-1);
  if (state === undefined || newest === undefined) return removed;
  const passed = (result: string | null, at: number | null) => result?.startsWith('ok') === true && (at ?? 0) > newest.snapshotAt;
  if (!passed(state.lastCheck, state.lastCheckAt) && !passed(state.lastDrill, state.lastDrillAt)) return removed;
  for (let i = 0; i < generations.length - 1; i++) {
    const generation = generations[i]!;
    if (generation.generation === state.generation) continue;
    if (generations[i + 1]!.snapshotAt > now - options.keepDays * DAY_MS) break;
    if (generation.lastAt > now - options.lockDays * DAY_MS) continue;
    const released = await store.offsite.releaseGeneration(generation.generation);
    for (const object of [...released.segments, ...released.blobs]) {
      await target.remove(object.name);
      await store.offsite.forgetObject(object.name);
      removed.objects++;
    }
    removed.generations.push(generation.generation);
  }
  if (removed.generations.length > 0) {
    options.logger.warn(
      { generations: removed.generations, objects: removed.objects },
      'OFFSITE_KEEP_DAYS: removed old generations from the off-site target',
    );
  }
  return removed;
}
