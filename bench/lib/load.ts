import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LoadPlan, LoadResult } from './load-plan.ts';
import { ROOT } from './servers.ts';

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

export interface Measured {
  /** The run with the median requests/s; all runs are kept for the record. */
  median: LoadResult;
  runs: LoadResult[];
}

/** A warm-up run (discarded), then `runs` measured runs; the median by requests/s is reported. */
export async function measure(plan: () => LoadPlan, options: { runs: number; warmupSeconds: number }): Promise<Measured> {
  await runLoad({ ...plan(), durationSeconds: options.warmupSeconds });
  const runs: LoadResult[] = [];
  for (let i = 0; i < options.runs; i++) runs.push(await runLoad(plan()));
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return { median: sorted[Math.floor(sorted.length / 2)]!, runs };
}

/** Requests not answered with an expected status, so that a scenario never reports failures as speed. */
export function unexpectedAnswers(result: LoadResult, expected: number[]): number {
  const wrong = Object.entries(result.statusCounts)
    .filter(([code]) => !expected.includes(Number(code)))
    .reduce((sum, [, count]) => sum + count, 0);
  return wrong + result.errors + result.timeouts;
}
