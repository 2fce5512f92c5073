import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Checkout, currentCheckout, ROOT } from '../lib/checkout.ts';
import type { Engine } from '../lib/deployment.ts';
import { Files, signedHeaders } from '../lib/file-api.ts';
import { type LoadTarget, type MeasuredRun, measuredRun, type Spread, spreadOf, unexpectedAnswers } from '../lib/load.ts';
import { type BenchContext, cpuPerRequest, median, perSecond, type Row, round, type Scenario, spreadText } from '../lib/scenario.ts';
import { type ServerGroup, withServers } from '../lib/served.ts';

/**
 * Small files against the disk's physical bound (issue 39, part 6). 32 clients upload 4 KiB bodies,
 * every request a new file (201): each creates a blob, its directory entry and a live record, the
 * harder case than a replacement, whose metadata only changes. On a service on disk + SQLite and on
 * one on disk + PostgreSQL (a fresh database), both up at once, beside the bound: a bare program
 * (bench/baselines/durable-writes.ts) doing with 32 threads exactly what the durable write of such a
 * blob needs (temp file, 4 KiB, fsync, rename, directory fsync, in the blobs' layout) on the same
 * filesystem (os.tmpdir(), where the deployments' DATA_DIR are), with no HTTP and no metadata; and the
 * same bound with its directory fsyncs grouped as the service groups them. Every side's warm-up, then
 * rounds in a balanced order (S P B G, G B P S, …); each ratio the median of its rounds' own.
 */

const FILE_BYTES = 4096;
const CLIENTS = 32;
/** A smoke run only proves the scenario works: fewer clients and threads, no warm-up (CI keeps it under 30 s). */
const clientsOf = (context: BenchContext) => (context.smoke ? 8 : CLIENTS);
/** Rounds at least (--runs may ask for more): a ratio of one round's runs, medians over these. */
const MIN_ROUNDS = 3;

interface Side {
  name: string;
  run(seconds: number): Promise<MeasuredRun>;
}

/** The bare program's run: its writes as the requests, its own CPU time (all its threads, counted from the start signal). */
async function boundRun(root: string, threads: number, seconds: number, group: boolean): Promise<MeasuredRun> {
  const args = ['--import', 'tsx', path.join(ROOT, 'bench/baselines/durable-writes.ts'), root, String(threads), String(seconds)];
  const child = spawn(process.execPath, group ? [...args, 'group'] : args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`small-files: the bound's program failed (${code}):\n${stderr.slice(-2000)}`);
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    writes: number;
    seconds: number;
    writesPerSecond: number;
    cpuMs: number;
    directoryFsyncs: number;
  };
  return {
    requests: result.writes,
    durationSeconds: result.seconds,
    requestsPerSecond: result.writesPerSecond,
    latencyMs: { p50: 0, p90: 0, p99: 0, max: 0 },
    statusCounts: {},
    errors: 0,
    timeouts: 0,
    serverCpuMs: result.cpuMs,
    cpuMicrosecondsPerRequest: (result.cpuMs * 1000) / result.writes,
    directoryFsyncs: result.directoryFsyncs,
  } as MeasuredRun;
}

/** A service's run, which must answer nothing but 201 (every upload a new file). */
function serviceSide(name: string, target: LoadTarget): Side {
  return {
    name,
    async run(seconds) {
      const run = await measuredRun({ pid: target.pid, plan: () => ({ ...target.plan(), durationSeconds: seconds }) });
      const wrong = unexpectedAnswers(run, [201]);
      if (wrong > 0) throw new Error(`small-files, ${name}: ${wrong} answers were not 201: ${JSON.stringify(run.statusCounts)}`);
      return run;
    },
  };
}

/** A service on a fresh deployment of `engine` (of `checkout`: default this one), as a side whose every upload makes a new file. */
async function serviceOn(servers: ServerGroup, context: BenchContext, engine: Engine, name: string, checkout?: Checkout): Promise<Side> {
  const { server, deployment } = await servers.service(engine, { name: `small-files-${name}`, ...(checkout ? { checkout } : {}) });
  const headers = await signedHeaders(deployment, server);
  const files = new Files(server, deployment.channelId, headers);
  const plan = () => ({
    url: server.baseUrl,
    method: 'PUT' as const,
    paths: [],
    // The template's {n} outside encodeURIComponent, which would escape its braces.
    freshPaths: `${files.path('small', 'f-')}{n}.bin`,
    connections: clientsOf(context),
    durationSeconds: context.durationSeconds,
    headers: { ...headers, 'Content-Type': 'application/octet-stream' },
    body: 'u'.repeat(FILE_BYTES),
  });
  return serviceSide(`${engine} ${name}`, { pid: server.pid, plan });
}

/**
 * Each side's warm-up, then rounds in a balanced order (A B C …, … C B A, …): a swing of this host
 * falls on every side alike. Each side's runs in round order, so that runs[i][r] and runs[j][r] are
 * of the same round.
 */
async function interleave(context: BenchContext, sides: Side[]): Promise<MeasuredRun[][]> {
  if (!context.smoke && context.warmupSeconds > 0) for (const side of sides) await side.run(context.warmupSeconds);
  const runs = sides.map((): MeasuredRun[] => []);
  const rounds = context.smoke ? 1 : Math.max(MIN_ROUNDS, context.runs);
  const order = [...sides.keys()];
  for (let r = 0; r < rounds; r++)
    for (const i of r % 2 === 1 ? [...order].reverse() : order) {
      runs[i]!.push(await sides[i]!.run(context.durationSeconds));
      context.log(`    ${sides[i]!.name}: ${Math.round(runs[i]!.at(-1)!.requestsPerSecond)}/s`);
    }
  return runs;
}

/** `work` with a fresh folder for the bound's files beside the deployments', removed after. */
async function withBoundRoot<T>(work: (root: string) => Promise<T>): Promise<T> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'wa-bench-bound-'));
  try {
    return await work(root);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const ENGINES: Engine[] = ['sqlite', 'postgres'];

async function measureSmallFiles(context: BenchContext): Promise<Row[]> {
  const clients = clientsOf(context);
  return withBoundRoot((boundRoot) =>
    withServers(context, async (servers) => {
      const sides: Side[] = [];
      for (const engine of ENGINES) sides.push(await serviceOn(servers, context, engine, 'this'));
      sides.push({ name: 'bound', run: (seconds) => boundRun(path.join(boundRoot, 'plain'), clients, seconds, false) });
      sides.push({ name: 'bound grouped', run: (seconds) => boundRun(path.join(boundRoot, 'grouped'), clients, seconds, true) });
      const runs = await interleave(context, sides);
      const [bound, grouped] = [runs[2]!, runs[3]!];
      return ENGINES.map((engine, e) => rowOf(engine, clients, runs[e]!, bound, grouped));
    }),
  );
}

/**
 * --against: this checkout's service and `other`'s on each engine, and the (plain) bound, all
 * interleaved: a row per engine with both services' figures, this ÷ other by round, and each ÷ the bound.
 */
async function compareSmallFiles(context: BenchContext, other: Checkout): Promise<Row[]> {
  const clients = clientsOf(context);
  const current = await currentCheckout();
  return withBoundRoot((boundRoot) =>
    withServers(context, async (servers) => {
      const sides: Side[] = [];
      for (const engine of ENGINES) {
        sides.push(await serviceOn(servers, context, engine, 'this'));
        sides.push(await serviceOn(servers, context, engine, 'other', other));
      }
      sides.push({ name: 'bound', run: (seconds) => boundRun(path.join(boundRoot, 'plain'), clients, seconds, false) });
      const runs = await interleave(context, sides);
      const bound = runs[4]!;
      return ENGINES.map((engine, e) => {
        const [mine, theirs] = [runs[2 * e]!, runs[2 * e + 1]!];
        const [m, t] = [summary(mine), summary(theirs)];
        const rate = byRound(mine, theirs, (x, y) => x.requestsPerSecond / y.requestsPerSecond);
        const cpu = byRound(mine, theirs, (x, y) => x.cpuMicrosecondsPerRequest / y.cpuMicrosecondsPerRequest);
        const overBound = (side: MeasuredRun[]) => spreadText(byRound(side, bound, (x, y) => x.requestsPerSecond / y.requestsPerSecond));
        return {
          scenario: `small-files (4 KiB new files, ${clients} clients)`,
          engine,
          measured: `this (${current.label}): ${figures(m)}; ÷ bound ${overBound(mine)}`,
          baseline: `other (${other.label}): ${figures(t)}; ÷ bound ${overBound(theirs)}`,
          ratio: round(rate.median),
          cpuRatio: round(cpu.median),
          details: { this: { checkout: current, runs: mine }, other: { checkout: other, runs: theirs }, bound, rate, cpu },
        };
      });
    }),
  );
}

const figures = (s: ReturnType<typeof summary>) =>
  `${perSecond(s.median.requestsPerSecond, 'uploads/s')}, p99 ${s.median.latencyMs.p99} ms, ${cpuPerRequest(s.cpu)}`;

const byRound = (a: MeasuredRun[], b: MeasuredRun[], figure: (a: MeasuredRun, b: MeasuredRun) => number): Spread =>
  spreadOf(a.map((run, i) => figure(run, b[i]!)));

/** The median run by rate (its p99 is the one shown) and the median CPU per request over the runs. */
function summary(runs: MeasuredRun[]) {
  const byRate = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return { median: byRate[Math.floor(byRate.length / 2)]!, cpu: median(runs.map((r) => r.cpuMicrosecondsPerRequest)) };
}

function rowOf(engine: Engine, clients: number, service: MeasuredRun[], bound: MeasuredRun[], grouped: MeasuredRun[]): Row {
  const s = summary(service);
  const b = summary(bound);
  const g = summary(grouped);
  const rate = byRound(service, bound, (x, y) => x.requestsPerSecond / y.requestsPerSecond);
  const cpu = byRound(service, bound, (x, y) => x.cpuMicrosecondsPerRequest / y.cpuMicrosecondsPerRequest);
  const rateGrouped = byRound(service, grouped, (x, y) => x.requestsPerSecond / y.requestsPerSecond);
  return {
    scenario: `small-files (4 KiB new files, ${clients} clients)`,
    engine,
    measured: figures(s),
    baseline:
      `bound (${clients} threads: temp, fsync, rename, directory fsync): ${perSecond(b.median.requestsPerSecond, 'writes/s')}, ${cpuPerRequest(b.cpu).replace('request', 'write')}; ` +
      `with its directory fsyncs grouped: ${perSecond(g.median.requestsPerSecond, 'writes/s')}, ${cpuPerRequest(g.cpu).replace('request', 'write')}; ` +
      `service ÷ bound by round: ${spreadText(rate)} (÷ grouped bound ${spreadText(rateGrouped)}), CPU ${spreadText(cpu)}`,
    ratio: round(rate.median),
    cpuRatio: round(cpu.median),
    details: { service, bound, boundGrouped: grouped, rate, cpu, rateGrouped },
  };
}

export const smallFilesScenario: Scenario = {
  name: 'small-files',
  summary:
    'uploads of new 4 KiB files from 32 clients on SQLite and PostgreSQL against the physical bound (a bare program writing, fsyncing and renaming the same files with 32 threads), interleaved',
  run: measureSmallFiles,
  against: compareSmallFiles,
};
