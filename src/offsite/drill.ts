import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../logging/logger.ts';
import { rowKey } from '../metadata/offsite/offsite-records.ts';
import { SHIPPED_TABLES } from '../metadata/offsite/shipped-tables.ts';
import { openMetadataStore } from '../metadata/open-metadata-store.ts';
import { SERVICE_CHAIN } from '../model/audit.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import { readCopy } from './copy-reader.ts';
import { offsiteEntry } from './offsite-audit.ts';
import { RebuildRefused, rebuildFromCopy } from './rebuild.ts';
import type { OffsiteTarget } from './target/offsite-target.ts';

export interface DrillResult {
  ok: boolean;
  generation: string | undefined;
  segment: number | undefined;
  rows: number;
  /** Rows that differ because they changed after the copy's position (queued, or in a segment shipped since). */
  newer: number;
  blobs: number;
  /** What failed, the first few: a row that differs with no change to explain it, or the rebuild's refusal. */
  failures: string[];
}

/** Rows a rebuild rightly changes: every admin is signed out as of the rebuild. */
const REBUILT_COLUMNS: Record<string, string[]> = { admins: ['signed_out_before'] };
const FAILURES_SHOWN = 5;

/**
 * A drill (docs/offsite.md, "Checks and drills"), run where the identity is kept: the latest copy
 * is rebuilt into a scratch directory and compared with the live rows, every record of every
 * shipped table, and every blob's sha256 (checked as the rebuild decrypts it) or a sample of them.
 * A row that differs counts as newer, not as a failure, when a change not yet in the copy explains
 * it: one still queued, or one in a segment shipped while the drill ran.
 */
export async function drill(options: {
  store: MetadataStore;
  target: OffsiteTarget;
  identities: Uint8Array[];
  operator: string;
  sample?: number | undefined;
  logger: Logger;
  now?: () => number;
}): Promise<DrillResult> {
  const { store, target, identities, logger } = options;
  const now = options.now ?? Date.now;
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-drill-'));
  const result: DrillResult = { ok: false, generation: undefined, segment: undefined, rows: 0, newer: 0, blobs: 0, failures: [] };
  try {
    try {
      const rebuilt = await rebuildFromCopy({
        target,
        identities,
        destination: { databaseUrl: undefined, dataDir: scratch, storage: { kind: 'disk', s3: undefined } },
        operator: options.operator,
        logger,
        blobSample: options.sample,
      });
      result.generation = rebuilt.generation;
      result.segment = rebuilt.segment;
      result.blobs = rebuilt.blobs;
    } catch (error) {
      if (!(error instanceof RebuildRefused)) throw error;
      result.failures.push(error.message);
    }
    if (result.failures.length === 0) await compare(store, scratch, target, identities, result);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  result.ok = result.failures.length === 0;
  const at = now();
  const summary = result.ok
    ? `ok: ${result.rows} records (${result.newer} newer than the copy) and ${result.blobs} blobs of generation ${result.generation}, segment ${result.segment}`
    : `failed: ${result.failures[0]}`;
  await store.offsite.noteDrill(summary, at);
  await store.files.appendAudit(
    offsiteEntry(
      SERVICE_CHAIN,
      'offsite.drill',
      result.ok ? 'ok' : 'failed',
      { target: target.description, ...result },
      at,
      options.operator,
    ),
  );
  if (!result.ok) logger.error({ target: target.description, failures: result.failures }, 'the off-site drill failed');
  return result;
}

async function compare(
  store: MetadataStore,
  scratch: string,
  target: OffsiteTarget,
  identities: Uint8Array[],
  result: DrillResult,
): Promise<void> {
  const copy = await openMetadataStore({ dataDir: scratch });
  const differing: { key: string; what: string }[] = [];
  try {
    for (const table of SHIPPED_TABLES) {
      const ignore = REBUILT_COLUMNS[table.name] ?? [];
      const shown = (row: Record<string, unknown>) =>
        JSON.stringify(
          Object.fromEntries(
            Object.entries(row)
              .filter(([column]) => !ignore.includes(column))
              .sort(([a], [b]) => a.localeCompare(b)),
          ),
        );
      const copied = new Map((await copy.offsite.rows(table.name)).map((row) => [rowKey(table.name, row), shown(row)]));
      const live = new Map((await store.offsite.rows(table.name)).map((row) => [rowKey(table.name, row), shown(row)]));
      for (const key of new Set([...copied.keys(), ...live.keys()])) {
        result.rows++;
        if (copied.get(key) === live.get(key)) continue;
        const what = !copied.has(key)
          ? 'is live but not in the copy'
          : !live.has(key)
            ? 'is in the copy but not live'
            : 'differs from the live row';
        differing.push({ key, what });
      }
    }
  } finally {
    await copy.close();
  }
  if (differing.length === 0) return;
  // What changed after the copy's position: the queue, and the segments shipped while the drill ran.
  const explained = await store.offsite.queuedKeys();
  const later = await readCopy(target, { identities, checkBlobs: false, onlyGeneration: result.generation });
  const generation = later.generations[0];
  for (const segment of generation?.segments.slice((result.segment ?? 0) + 1) ?? []) {
    for (const change of segment.changes) {
      if (change.k) explained.add(rowKey(change.t, change.k));
      if (change.r) explained.add(rowKey(change.t, change.r));
    }
  }
  for (const { key, what } of differing) {
    if (explained.has(key)) result.newer++;
    else if (result.failures.length < FAILURES_SHOWN)
      result.failures.push(`${key} ${what}, and no change since the copy's position explains it`);
  }
}
