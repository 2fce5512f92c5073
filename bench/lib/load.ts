import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './checkout.ts';
import type { LoadPlan, LoadResult } from './load-plan.ts';
import { processCpuMs } from './process-cpu.ts';
import { median } from './scenario.ts';

/** Runs one LoadPlan in a separate load process (autocannon) and returns what it measured. */
export async function runLoad(plan: LoadPlan): Promise<LoadResult> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'wa-bench-plan-'));
  const planFile = path.join(directory, 'plan.json');
  await writeFile(planFile, JSON.stringify(plan));
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/lib/load-worker.ts'), planFile], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const last = stdout.trim().split('\n').at(-1) ?? '';
    if (code !== 0 || !last.startsWith('{')) throw new Error(`the load process failed (${code}):\n${stderr.slice(-2000)}`);
    return JSON.parse(last) as LoadResult;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** A server under load: its process, whose CPU time is read around each run, and the plan of each run. */
export interface LoadTarget {
  pid: number;
  plan(): LoadPlan;
}

/** One measured run: what the load process saw, and what the server's process spent meanwhile. */
export interface MeasuredRun extends LoadResult {
  /** The server process's CPU time over the run (user + system, /proc/<pid>/stat), in ms. */
  serverCpuMs: number;
  /** serverCpuMs per request answered in the run, in µs. */
  cpuMicrosecondsPerRequest: number;
}

export interface Measured {
  /** The run with the median requests/s (its latencies are the ones reported); all runs are kept for the record. */
  median: MeasuredRun;
  /** The median over the runs of CPU µs per request: a figure of its own, not the median run's. */
  cpuMicrosecondsPerRequest: number;
  runs: MeasuredRun[];
}

/**
 * One run, with the server's CPU time read right before and right after it. The window also holds
 * the load process's start (and the signing of a pool), while the server idles: its idle cost is
 * within the clock tick's resolution.
 */
export async function measuredRun(target: LoadTarget): Promise<MeasuredRun> {
  const cpuBefore = await processCpuMs(target.pid);
  const result = await runLoad(target.plan());
  const serverCpuMs = (await processCpuMs(target.pid)) - cpuBefore;
  if (result.poolSpent)
    console.log(
      `    (a run of ${result.poolSpent.plannedSeconds} s ended after ${result.durationSeconds} s, its ${result.poolSpent.size} pre-signed sign-ins spent: its figures cover that time)`,
    );
  return { ...result, serverCpuMs, cpuMicrosecondsPerRequest: result.requests > 0 ? (serverCpuMs * 1000) / result.requests : 0 };
}

function summary(runs: MeasuredRun[]): Measured {
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return {
    median: sorted[Math.floor(sorted.length / 2)]!,
    cpuMicrosecondsPerRequest: median(runs.map((r) => r.cpuMicrosecondsPerRequest)),
    runs,
  };
}

/**
 * Each target's warm-up (discarded; none when `warmupSeconds` is 0), then `runs` rounds in which every target is measured once, in
 * the order given: the service's run 1, its baseline's run 1, the service's run 2, … This host's
 * throughput swings from minute to minute; interleaved, a swing falls on both sides of a
 * comparison alike instead of on whichever was measured at the time. `balanced`: every other round
 * in the reverse order (A B C, C B A, A B C, …), so that no target always runs first, or always right
 * after the same other's load. Results in the targets' order, each target's runs in round order.
 */
export async function measureInterleaved(
  targets: LoadTarget[],
  options: {
    runs: number;
    warmupSeconds: number;
    balanced?: boolean;
    /**
     * Work of the bench process's own, in the same rounds: run right before target `i`'s run of
     * each round (a figure that is part of that target's baseline, read beside it).
     */
    beforeRun?: (i: number, round: number) => Promise<void>;
  },
): Promise<Measured[]> {
  if (options.warmupSeconds > 0) for (const target of targets) await runLoad({ ...target.plan(), durationSeconds: options.warmupSeconds });
  const runs = targets.map((): MeasuredRun[] => []);
  for (let round = 0; round < options.runs; round++)
    for (const i of roundOrder(targets.length, round, options.balanced ?? false)) {
      await options.beforeRun?.(i, round);
      runs[i]!.push(await measuredRun(targets[i]!));
    }
  return runs.map(summary);
}

/** The sides' order in `round`: as given, or (`balanced`) reversed every other round (A B C, C B A, …). */
export function roundOrder(sides: number, round: number, balanced: boolean): number[] {
  const indices = [...Array(sides).keys()];
  return balanced && round % 2 === 1 ? indices.reverse() : indices;
}

/** One target alone: a warm-up run (discarded), then `runs` measured runs. */
export async function measure(target: LoadTarget, options: { runs: number; warmupSeconds: number }): Promise<Measured> {
  const [measured] = await measureInterleaved([target], options);
  return measured!;
}

/** Requests not answered with an expected status, so that a scenario never reports failures as speed. */
export function unexpectedAnswers(result: LoadResult, expected: number[]): number {
  const wrong = Object.entries(result.statusCounts)
    .filter(([code]) => !expected.includes(Number(code)))
    .reduce((sum, [, count]) => sum + count, 0);
  return wrong + result.errors + result.timeouts;
}

/** Fails the scenario when any run had an answer of another status than `expected` (or an error or timeout). */
export function checked(measured: Measured, expected: number[], what: string): Measured {
  for (const run of measured.runs) {
    const wrong = unexpectedAnswers(run, expected);
    if (wrong > 0)
      throw new Error(
        `${what}: ${wrong} answers were not ${expected.join('/')}: ${JSON.stringify(run.statusCounts)}, ${run.errors} errors, ${run.timeouts} timeouts`,
      );
  }
  return measured;
}

/** A figure over the runs of one comparison: its median and the range it spans. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  values: number[];
}

export function spreadOf(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: median(values), min: sorted[0]!, max: sorted.at(-1)!, values };
}

/**
 * `figure` of each round of `a` against the same round of `b` (measured back to back by
 * measureInterleaved): the median of these pair figures is what a comparison reads, not a figure
 * of each side's median, which puts runs minutes apart against each other on a host that swings.
 */
export function pairwise(a: Measured, b: Measured, figure: (a: MeasuredRun, b: MeasuredRun) => number): Spread {
  return spreadOf(a.runs.map((run, i) => figure(run, b.runs[i]!)));
}

/** Of a pair: CPU time per request of the first side ÷ the second's. */
export const cpuOver = (a: MeasuredRun, b: MeasuredRun) => a.cpuMicrosecondsPerRequest / b.cpuMicrosecondsPerRequest;
/** Of a pair: requests/s of the first side ÷ the second's. */
export const rateOver = (a: MeasuredRun, b: MeasuredRun) => a.requestsPerSecond / b.requestsPerSecond;
