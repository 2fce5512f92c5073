/**
 * Runs test files through node:test, several side by side, and prints where the time went: the
 * slowest files with their seconds (README's budget for the suites is kept by reading this list).
 * Used by `npm test` (test/whole-suite.ts) and `npm run test:unit` (test/unit-tier.ts).
 *
 * Node's own runner does the work (timeouts, the spec reporter); this chooses the order and the
 * groups, and collects the seconds. A group runs either one process per file, or in a few shard
 * processes that each run many files (both are shard.ts processes): loading and compiling
 * the service's modules once per shard rather than once per file halves the CPU the unit tier
 * needs. The children inherit this process's `--import tsx`.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { addCounts, NO_COUNTS, type Outcome } from './suite-outcome.ts';
import { TEST_DIR } from './tiers.ts';

/** A group of files run together, after the group before it has finished. */
export interface FileGroup {
  /** What the group is, for the timing list: "side by side", "alone". */
  label: string;
  /** test/-relative paths. */
  files: string[];
  /** How many processes at a time. */
  concurrency: number;
  /** One process per file (isolation), or `concurrency` shards that each run a share of the files. */
  isolation: 'process' | 'shards';
}

/**
 * Each file's seconds in an earlier run (test/file-seconds.json), to start the longest first and to
 * share the files among shards evenly. Only the order depends on it; a file not listed counts as
 * the median.
 */
function estimatedSeconds(): Map<string, number> {
  try {
    return new Map(Object.entries(JSON.parse(readFileSync(`${TEST_DIR}file-seconds.json`, 'utf8')) as Record<string, number>));
  } catch {
    return new Map();
  }
}

/** UPDATE_FILE_SECONDS=1: this run's seconds replace the estimates of the files it ran. */
function recordSeconds(estimates: Map<string, number>, seconds: Map<string, number>): void {
  const merged = new Map([...estimates, ...[...seconds].map(([file, s]) => [file, Math.round(s * 10) / 10] as const)]);
  const sorted = Object.fromEntries([...merged].sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(`${TEST_DIR}file-seconds.json`, `${JSON.stringify(sorted, null, 2)}\n`);
}

/** A file's estimated seconds: its own, or for a file not listed, the median of those listed. */
function secondsOf(estimates: Map<string, number>): (file: string) => number {
  const known = [...estimates.values()].sort((a, b) => a - b);
  const median = known[Math.floor(known.length / 2)] ?? 1;
  return (file) => estimates.get(file) ?? median;
}

function longestFirst(files: string[], estimates: Map<string, number>): string[] {
  const seconds = secondsOf(estimates);
  return [...files].sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b));
}

/** The files dealt to `count` shards, each to the one with the least so far (longest first). */
function shards(files: string[], count: number, estimates: Map<string, number>): string[][] {
  const seconds = secondsOf(estimates);
  const dealt = Array.from({ length: Math.min(count, files.length) }, () => ({ files: [] as string[], seconds: 0 }));
  for (const file of longestFirst(files, estimates)) {
    const lightest = dealt.reduce((min, shard) => (shard.seconds < min.seconds ? shard : min));
    lightest.files.push(file);
    lightest.seconds += seconds(file);
  }
  return dealt.map((shard) => shard.files);
}

/**
 * One process per file, `concurrency` at a time, longest first: each file a shard of its own.
 * Not node:test's process isolation, whose `forceExit` can end a file's process before its last
 * results reach the runner (nodejs/node#64833: a run once reported none of a file's 8 tests and
 * still passed). A shard reports whole before it exits, and a shard that ends without reporting
 * fails the run. Its report is also printed in one piece, so that files side by side do not
 * interleave. A file's seconds are its process's, start to exit.
 */
async function runIsolated(group: FileGroup, estimates: Map<string, number>, output: Writable): Promise<Outcome> {
  const queue = longestFirst(group.files, estimates);
  let total = NOTHING_RUN;
  const worker = async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      const started = performance.now();
      const outcome = await runShard([file], output);
      total = combine(total, { ...outcome, seconds: new Map([[file, (performance.now() - started) / 1000]]) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(group.concurrency, queue.length) }, worker));
  return total;
}

/** One shard process; its report is printed whole when it ends, so that shards do not interleave. */
function runShard(files: string[], output: Writable): Promise<Outcome> {
  const child = spawn(process.execPath, [...process.execArgv, `${TEST_DIR}helpers/shard.ts`, ...files], {
    stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
  });
  const report: Buffer[] = [];
  const result: Buffer[] = [];
  child.stdout!.on('data', (chunk: Buffer) => report.push(chunk));
  child.stdio[3]!.on('data', (chunk: Buffer) => result.push(chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      output.write(Buffer.concat(report));
      const text = Buffer.concat(result).toString('utf8').trim();
      if (text === '') {
        output.write(`\n# a shard ended (${signal ?? `exit ${code}`}) before reporting: ${files.join(', ')}\n`);
        resolve({ failed: true, seconds: new Map(), counts: NO_COUNTS });
        return;
      }
      const parsed = JSON.parse(text) as Omit<Outcome, 'seconds'> & { seconds: [string, number][] };
      resolve({ ...parsed, failed: parsed.failed || code !== 0, seconds: new Map(parsed.seconds) });
    });
  });
}

/** Runs one group; its reports go to `output`. Exported for the runner's own tests. */
export async function runGroup(group: FileGroup, estimates: Map<string, number>, output: Writable = process.stdout): Promise<Outcome> {
  if (group.isolation === 'process') return runIsolated(group, estimates, output);
  const outcomes = await Promise.all(shards(group.files, group.concurrency, estimates).map((files) => runShard(files, output)));
  return outcomes.reduce(combine, NOTHING_RUN);
}

const NOTHING_RUN: Outcome = { failed: false, seconds: new Map(), counts: NO_COUNTS };

function combine(sum: Outcome, outcome: Outcome): Outcome {
  return {
    failed: sum.failed || outcome.failed,
    seconds: new Map([...sum.seconds, ...outcome.seconds]),
    counts: addCounts(sum.counts, outcome.counts),
  };
}

/** How many of the slowest files the list names. */
const SLOWEST = 20;

function timingList(groups: FileGroup[], seconds: Map<string, number>, wallSeconds: number): string {
  const groupOf = new Map(groups.flatMap((group) => group.files.map((file) => [file, group.label] as const)));
  const sorted = [...seconds].sort((a, b) => b[1] - a[1]);
  const total = sorted.reduce((sum, [, s]) => sum + s, 0);
  const slowest = sorted.slice(0, SLOWEST);
  const width = Math.max(0, ...slowest.map(([file]) => file.length));
  return [
    '',
    `# ${seconds.size} files in ${wallSeconds.toFixed(0)} s (${total.toFixed(0)} s of file time); the slowest ${slowest.length}:`,
    ...slowest.map(([file, s]) => `#  ${s.toFixed(1).padStart(7)} s  ${file.padEnd(width)}  ${groupOf.get(file)}`),
    '',
  ].join('\n');
}

/** Runs the groups in order, prints the timing list and the totals, and sets the exit code. */
export async function runSuite(groups: FileGroup[]): Promise<void> {
  const started = performance.now();
  const estimates = estimatedSeconds();
  let total = NOTHING_RUN;
  for (const group of groups) {
    if (group.files.length > 0) total = combine(total, await runGroup(group, estimates));
  }
  process.stdout.write(timingList(groups, total.seconds, (performance.now() - started) / 1000));
  if (process.env.UPDATE_FILE_SECONDS === '1') recordSeconds(estimates, total.seconds);
  // Each group's report ends with its own summary; this one is the whole run's, and ends the output.
  const names: Record<string, string> = { passed: 'pass', failed: 'fail' };
  const summary = Object.entries(total.counts).map(([key, value]) => `# ${names[key] ?? key} ${value}`);
  process.stdout.write(`${summary.join('\n')}\n# ${total.failed ? 'FAILED' : 'ok'}\n`);
  process.exitCode = total.failed ? 1 : 0;
}
