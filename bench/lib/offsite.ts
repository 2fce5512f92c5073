import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateIdentity } from '../../src/age/age-keys.ts';
import type { RunningServer } from './servers.ts';

/**
 * An off-site target for one scenario: a fresh directory (file:///…, outside every DATA_DIR: both
 * are made beside each other in the temporary folder) and a fresh age identity, whose recipient the
 * service encrypts to and whose identity file `offsite restore` reads.
 */
export interface OffsiteTarget {
  dir: string;
  url: string;
  identityFile: string;
  /** OFFSITE_URL and OFFSITE_RECIPIENTS: what a service needs to ship here (OFFSITE_SHIP_INTERVAL left at its default). */
  env: Record<string, string>;
  remove(): Promise<void>;
}

export async function createOffsiteTarget(): Promise<OffsiteTarget> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'wa-bench-offsite-'));
  const keyDir = await mkdtemp(path.join(os.tmpdir(), 'wa-bench-age-'));
  const { identity, recipient } = generateIdentity();
  const identityFile = path.join(keyDir, 'key.txt');
  await writeFile(identityFile, `${identity}\n`, { mode: 0o600 });
  const url = pathToFileURL(dir).href;
  return {
    dir,
    url,
    identityFile,
    env: { OFFSITE_URL: url, OFFSITE_RECIPIENTS: recipient },
    async remove() {
      await rm(dir, { recursive: true, force: true });
      await rm(keyDir, { recursive: true, force: true });
    },
  };
}

/** The off-site gauges of GET /metrics (offsite-service.ts): what `offsite status` says too, read without a process of its own. */
export interface OffsiteGauges {
  lagSeconds: number;
  changesPending: number;
  bytesShipped: number;
}

const gauge = (text: string, name: string): number => {
  const match = new RegExp(`^wallet_admin_${name} ([0-9.eE+-]+)$`, 'm').exec(text);
  return match ? Number(match[1]) : Number.NaN;
};

export async function offsiteGauges(server: RunningServer): Promise<OffsiteGauges> {
  const response = await fetch(`${server.baseUrl}/metrics`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /metrics: ${response.status} ${text.slice(0, 200)}`);
  return {
    lagSeconds: gauge(text, 'offsite_lag_seconds'),
    changesPending: gauge(text, 'offsite_changes_pending'),
    bytesShipped: gauge(text, 'offsite_bytes_shipped'),
  };
}

/** GET /metrics of a service without a target: the same request, for a side that must pay what the sampled side pays. */
export async function scrapeMetrics(server: RunningServer): Promise<undefined> {
  const response = await fetch(`${server.baseUrl}/metrics`);
  await response.text();
  return undefined;
}

/**
 * Polls the gauges every `everyMs` until nothing is left to ship (no change pending, lag 0, some
 * bytes shipped: the snapshot at the target too); answers the last reading and how long it took.
 */
export async function waitCaughtUp(
  server: RunningServer,
  options: { everyMs?: number; timeoutMs?: number; what?: string } = {},
): Promise<{ ms: number; gauges: OffsiteGauges }> {
  const { everyMs = 20, timeoutMs = 600_000, what = 'the off-site copy' } = options;
  const started = performance.now();
  for (;;) {
    const gauges = await offsiteGauges(server);
    if (Number.isNaN(gauges.lagSeconds)) throw new Error('GET /metrics has no wallet_admin_offsite_lag_seconds: is OFFSITE_URL set?');
    // Bytes shipped too: until the shipper's first round has recorded the target and begun the
    // snapshot, the gauges read lag 0 and nothing pending (bytes shipped absent) though nothing is there.
    if (gauges.changesPending === 0 && gauges.lagSeconds === 0 && gauges.bytesShipped > 0)
      return { ms: performance.now() - started, gauges };
    if (performance.now() - started > timeoutMs)
      throw new Error(`${what} did not catch up within ${timeoutMs / 1000} s: ${JSON.stringify(gauges)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Samples `sample` every `everyMs` until stopped; answers the samples. */
export function sampler<T>(everyMs: number, sample: () => Promise<T>): { stop(): Promise<T[]> } {
  const samples: T[] = [];
  let running = true;
  let failure: unknown;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        samples.push(await sample());
      } catch (error) {
        failure ??= error;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, everyMs - (performance.now() - started))));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (failure !== undefined) throw failure;
      return samples;
    },
  };
}

/** The value at quantile q (0 … 1) of `values`, nearest rank. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}
