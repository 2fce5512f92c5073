import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config/config.ts';
import { filePath } from '../../src/files/file-path.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { createService } from '../../src/service/service.ts';
import { createTestDatabase } from '../../test/helpers/postgres.ts';
import { cliOf, processEnv, ROOT } from '../lib/checkout.ts';
import { createDeployment, type Deployment, type Engine } from '../lib/deployment.ts';
import { Files, signedHeaders } from '../lib/file-api.ts';
import { runLoad, unexpectedAnswers } from '../lib/load.ts';
import type { LoadPlan, LoadResult } from '../lib/load-plan.ts';
import {
  createOffsiteTarget,
  type OffsiteGauges,
  type OffsiteTarget,
  offsiteGauges,
  quantile,
  sampler,
  scrapeMetrics,
  waitCaughtUp,
} from '../lib/offsite.ts';
import { processCpuMs } from '../lib/process-cpu.ts';
import { type BenchContext, cpuPerRequest, median, perSecond, type Row, round, type Scenario } from '../lib/scenario.ts';
import { type Served, withServers } from '../lib/served.ts';
import { startService } from '../lib/servers.ts';
import { uploadSmall } from './small-writes.ts';

const run = promisify(execFile);
const KiB = 1024;
const MiB = 1024 * KiB;
const thousands = (n: number) => n.toLocaleString('en-US');
const seconds = (ms: number) => `${round(ms / 1000, ms < 10_000 ? 2 : 1)} s`;

// ---------------------------------------------------------------------------------------------
// 1 and 2: the write path with and without a target, and the lag under that load
// ---------------------------------------------------------------------------------------------

/** How often the lag is read during a run (GET /metrics; the service without a target is asked as often). */
const LAG_SAMPLE_MS = 250;
/** How often the gauges are read while waiting for the copy to catch up after a run. */
const DRAIN_POLL_MS = 100;
/** The fixed rate of the steady run: below what the shipper ships on 2 cores beside the load, on either engine. */
const STEADY_UPLOADS_PER_SECOND = 50;

interface WriteRun extends LoadResult {
  serverCpuMs: number;
  cpuMicrosecondsPerRequest: number;
  /** With a target: what was left to ship when the load stopped, and what catching up with it took. */
  catchUp?: {
    pendingAtEnd: number;
    lagAtEndSeconds: number;
    ms: number;
    serverCpuMs: number;
    cpuMicrosecondsPerRequest: number;
    /** The changes pending when the load stopped ÷ the time to ship them with no load beside: the shipper's pace alone. */
    changesPerSecond: number;
  };
  /** With a target: the lag read every LAG_SAMPLE_MS during the run, in seconds. */
  lagSeconds?: number[];
}

interface Side {
  name: string;
  served: Served;
  plan: () => LoadPlan;
  offsite: boolean;
  runs: WriteRun[];
}

/**
 * One run of a side: the server's CPU time read right before and after the load (as measure()
 * does), the metrics scraped every LAG_SAMPLE_MS on both sides (the lag on the side with a target),
 * and on that side, once the load stopped, the wait until nothing is left to ship, with the CPU
 * time it took: what the load cost the service in all, shipping included.
 */
async function writeRun(side: Side, plan: LoadPlan = side.plan()): Promise<WriteRun> {
  const { server } = side.served;
  const samples = sampler<OffsiteGauges | undefined>(LAG_SAMPLE_MS, () => (side.offsite ? offsiteGauges(server) : scrapeMetrics(server)));
  const cpuBefore = await processCpuMs(server.pid);
  const result = await runLoad(plan);
  const cpuAfterLoad = await processCpuMs(server.pid);
  const sampled = await samples.stop();
  const serverCpuMs = cpuAfterLoad - cpuBefore;
  const measured: WriteRun = { ...result, serverCpuMs, cpuMicrosecondsPerRequest: (serverCpuMs * 1000) / Math.max(1, result.requests) };
  if (side.offsite) {
    const atEnd = await offsiteGauges(server);
    const caught = await waitCaughtUp(server, { everyMs: DRAIN_POLL_MS, what: 'offsite-write' });
    const catchUpCpuMs = (await processCpuMs(server.pid)) - cpuAfterLoad;
    measured.lagSeconds = sampled.map((g) => g!.lagSeconds);
    measured.catchUp = {
      pendingAtEnd: atEnd.changesPending,
      lagAtEndSeconds: atEnd.lagSeconds,
      ms: caught.ms,
      serverCpuMs: catchUpCpuMs,
      cpuMicrosecondsPerRequest: ((serverCpuMs + catchUpCpuMs) * 1000) / Math.max(1, result.requests),
      changesPerSecond: atEnd.changesPending / Math.max(0.001, caught.ms / 1000),
    };
  }
  return measured;
}

/**
 * upload-small on two services at once, one without OFFSITE_URL and one shipping to a directory,
 * their runs interleaved (without, with, without, with, …); the lag sampled during the runs of the
 * one with a target; then one run at a steady STEADY_UPLOADS_PER_SECOND on the one with a target.
 * Three rows: the write path's cost, the lag under the full load, the lag at the steady rate.
 */
export async function offsiteWrite(context: BenchContext, engine: Engine): Promise<Row[]> {
  const target = await createOffsiteTarget();
  try {
    return await withServers(context, async (servers) => {
      const sides: Side[] = [];
      for (const [name, env] of [
        ['no-target', {}],
        ['offsite', target.env],
      ] as const) {
        const served = await servers.service(engine, { name, env });
        sides.push({ name, served, plan: await uploadSmall.prepare(served, context), offsite: name === 'offsite', runs: [] });
      }
      const [plain, shipping] = sides as [Side, Side];
      // The snapshot and the prepared files at the target before anything is measured.
      await waitCaughtUp(shipping.served.server, { what: 'offsite-write (the first snapshot)' });
      // The smoke run skips the warm-up: it only proves the scenario works, in under 20 seconds.
      if (!context.smoke) {
        for (const side of sides) await runLoad({ ...side.plan(), durationSeconds: context.warmupSeconds });
        await waitCaughtUp(shipping.served.server, { what: 'offsite-write (after the warm-up)' });
      }
      for (let r = 0; r < context.runs; r++) for (const side of sides) side.runs.push(await writeRun(side));
      // Then the lag at a steady rate the shipper can follow: one run as long as the runs above together.
      const steady = await writeRun(shipping, {
        ...shipping.plan(),
        overallRate: STEADY_UPLOADS_PER_SECOND,
        durationSeconds: context.durationSeconds * context.runs,
      });
      for (const side of sides)
        for (const measured of side === shipping ? [...side.runs, steady] : side.runs) {
          const wrong = unexpectedAnswers(measured, uploadSmall.expected);
          if (wrong > 0)
            throw new Error(`offsite-write (${side.name}): ${wrong} answers were not 200: ${JSON.stringify(measured.statusCounts)}`);
        }

      const middle = (runs: WriteRun[]) =>
        [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(runs.length / 2)]!;
      const plainMedian = middle(plain.runs);
      const shippingMedian = middle(shipping.runs);
      const plainCpu = median(plain.runs.map((m) => m.cpuMicrosecondsPerRequest));
      const shippingCpu = median(shipping.runs.map((m) => m.cpuMicrosecondsPerRequest));
      const shippingCpuAll = median(shipping.runs.map((m) => m.catchUp!.cpuMicrosecondsPerRequest));
      const lags = shipping.runs.flatMap((m) => m.lagSeconds!);
      const catchUps = shipping.runs.map((m) => m.catchUp!);
      const steadyLags = steady.lagSeconds!;
      const title = `offsite-write (${uploadSmall.title.replace(/^upload-small \((.*)\)$/, 'upload-small: $1')})`;
      const figures = (m: WriteRun, cpu: number) =>
        `${perSecond(m.requestsPerSecond, uploadSmall.unit)}, p99 ${m.latencyMs.p99} ms, ${cpuPerRequest(cpu)}`;
      return [
        {
          scenario: title,
          engine,
          measured: `with a target: ${figures(shippingMedian, shippingCpu)}; ${thousands(Math.round(shippingCpuAll))} µs CPU/upload with the shipping that followed the run`,
          baseline: `no target: ${figures(plainMedian, plainCpu)}`,
          ratio: round(shippingMedian.requestsPerSecond / plainMedian.requestsPerSecond),
          cpuRatio: round(shippingCpuAll / plainCpu),
          details: {
            interleaved: 'no target, with a target, no target, …',
            lagSampleMs: LAG_SAMPLE_MS,
            noTarget: { median: plainMedian, cpuMicrosecondsPerRequest: plainCpu, runs: plain.runs },
            withTarget: {
              median: shippingMedian,
              cpuMicrosecondsPerRequest: shippingCpu,
              cpuMicrosecondsPerRequestWithShipping: shippingCpuAll,
              runs: shipping.runs,
            },
          },
        },
        {
          scenario: `offsite-write lag (upload-small at full speed, OFFSITE_SHIP_INTERVAL 1000 ms)`,
          engine,
          measured:
            `lag p50 ${round(quantile(lags, 0.5), 2)} s, p99 ${round(quantile(lags, 0.99), 2)} s, max ${round(Math.max(...lags), 2)} s ` +
            `(${lags.length} samples, every ${LAG_SAMPLE_MS} ms); when the load stopped: ${Math.round(median(catchUps.map((c) => c.pendingAtEnd)))} changes pending, ` +
            `lag 0 ${Math.round(median(catchUps.map((c) => c.ms)))} ms later (${thousands(Math.round(median(catchUps.map((c) => c.changesPerSecond))))} changes/s shipped with no load beside)`,
          details: {
            lagSeconds: distribution(lags),
            samples: lags.length,
            catchUps,
          },
        },
        {
          scenario: `offsite-write lag (${STEADY_UPLOADS_PER_SECOND} uploads/s for ${context.durationSeconds * context.runs} s, OFFSITE_SHIP_INTERVAL 1000 ms)`,
          engine,
          measured:
            `lag p50 ${round(quantile(steadyLags, 0.5), 2)} s, p99 ${round(quantile(steadyLags, 0.99), 2)} s, max ${round(Math.max(...steadyLags), 2)} s ` +
            `(${steadyLags.length} samples); ${perSecond(steady.requestsPerSecond, 'uploads/s')} answered, p99 ${steady.latencyMs.p99} ms; ` +
            `${steady.catchUp!.pendingAtEnd} changes pending when the load stopped`,
          details: { lagSeconds: distribution(steadyLags), samples: steadyLags.length, run: steady },
        },
      ];
    });
  } finally {
    await target.remove();
  }
}

const distribution = (values: number[]) => ({
  p50: quantile(values, 0.5),
  p90: quantile(values, 0.9),
  p99: quantile(values, 0.99),
  max: Math.max(...values),
});

// ---------------------------------------------------------------------------------------------
// 3: catching up after an outage of the target
// ---------------------------------------------------------------------------------------------

/** Files of the queued uploads: large enough that bytes, not requests, are what is shipped. */
const OUTAGE_FILE_BYTES = MiB;
const OUTAGE_PARALLEL = 8;

/** Every file below `root`, relative to it. */
async function filesBelow(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

/**
 * The target unreachable: its directory moved aside and a plain file put at its path, so that every
 * write below it fails (ENOTDIR) whoever the service runs as (root ignores a chmod 000); undone by
 * putting the directory back. The service opened the target at its start and is told nothing.
 */
async function outage(target: OffsiteTarget): Promise<() => Promise<void>> {
  const aside = `${target.dir}.away`;
  await rename(target.dir, aside);
  await writeFile(target.dir, 'the off-site disk is away\n');
  return async () => {
    await rm(target.dir);
    await rename(aside, target.dir);
  };
}

/**
 * A service shipping to a directory; per run, the target becomes unreachable, `queuedMiB` MiB of
 * uploads (random 1 MiB files, 8 PUTs at a time) are made, the target comes back, and the time
 * until nothing is left to ship (lag 0) is taken. Baseline: `cp` of the same blobs (those the
 * run's uploads added to DATA_DIR/storage) to a directory beside the target, then `sync`.
 */
export async function offsiteCatchUp(context: BenchContext, engine: Engine, queuedMiB: number): Promise<Row> {
  const target = await createOffsiteTarget();
  const count = Math.ceil((queuedMiB * MiB) / OUTAGE_FILE_BYTES);
  try {
    return await withServers(context, async (servers) => {
      const { server, deployment } = await servers.service(engine, { name: 'catch-up', env: target.env });
      const files = new Files(server, deployment.channelId, await signedHeaders(deployment, server));
      const storage = path.join(deployment.dataDir, 'storage');
      await waitCaughtUp(server, { what: 'offsite-catch-up (the first snapshot)' });
      const runs: {
        queuedBytes: number;
        pendingChanges: number;
        lagBeforeReturnSeconds: number;
        catchUpMs: number;
        firstByteMs: number;
        cipherBytes: number;
        cpMs: number;
        cpBytes: number;
      }[] = [];
      for (let r = 1; r <= context.runs; r++) {
        const before = new Set(await filesBelow(storage));
        const restoreTarget = await outage(target);
        try {
          let next = 0;
          await Promise.all(
            Array.from({ length: OUTAGE_PARALLEL }, async () => {
              while (next < count) {
                const i = next++;
                await files.put('outage', `r${r}-${String(i).padStart(5, '0')}.bin`, randomBytes(OUTAGE_FILE_BYTES));
              }
            }),
          );
          // A round of the shipper has failed on the target meanwhile (it looks every second).
          await new Promise((resolve) => setTimeout(resolve, 1500));
        } catch (error) {
          await restoreTarget();
          throw error;
        }
        const queued = await offsiteGauges(server);
        if (queued.changesPending === 0) throw new Error('offsite-catch-up: nothing is pending during the outage: did it ship anyway?');
        const added = (await filesBelow(storage)).filter((file) => !before.has(file));
        const queuedBytes = count * OUTAGE_FILE_BYTES;

        await restoreTarget();
        const started = performance.now();
        let firstByteMs = Number.NaN;
        let gauges = queued;
        for (;;) {
          gauges = await offsiteGauges(server);
          if (Number.isNaN(firstByteMs) && gauges.bytesShipped > queued.bytesShipped) firstByteMs = performance.now() - started;
          if (gauges.changesPending === 0 && gauges.lagSeconds === 0) break;
          if (performance.now() - started > 600_000)
            throw new Error(`offsite-catch-up: no catch-up in 10 minutes: ${JSON.stringify(gauges)}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const catchUpMs = performance.now() - started;

        // The baseline: the same blobs, copied to the target's disk, then synced.
        const copy = await mkdtemp(`${target.dir}-cp-`);
        await run('sync');
        const cpStarted = performance.now();
        await run('cp', ['--parents', '-t', copy, ...added], { cwd: storage });
        await run('sync');
        const cpMs = performance.now() - cpStarted;
        let cpBytes = 0;
        for (const file of added) cpBytes += (await stat(path.join(storage, file))).size;
        await rm(copy, { recursive: true, force: true });
        runs.push({
          queuedBytes,
          pendingChanges: queued.changesPending,
          lagBeforeReturnSeconds: queued.lagSeconds,
          catchUpMs,
          firstByteMs,
          cipherBytes: gauges.bytesShipped - queued.bytesShipped,
          cpMs,
          cpBytes,
        });
        context.log(
          `offsite-catch-up run ${r}: ${queued.changesPending} changes (${queuedMiB} MiB) caught up in ${Math.round(catchUpMs)} ms (first byte after ${Math.round(firstByteMs)} ms); cp + sync ${Math.round(cpMs)} ms`,
        );
      }
      const rate = (bytes: number, ms: number) => bytes / MiB / (ms / 1000);
      const catchUpRate = median(runs.map((x) => rate(x.queuedBytes, x.catchUpMs)));
      const shippingRate = median(runs.map((x) => rate(x.queuedBytes, x.catchUpMs - x.firstByteMs)));
      const cpRate = median(runs.map((x) => rate(x.cpBytes, x.cpMs)));
      return {
        scenario: `offsite-catch-up (${thousands(queuedMiB)} MiB in ${thousands(count)} files queued while the target was away)`,
        engine,
        measured: `${round(catchUpRate, 1)} MiB/s (lag 0 ${seconds(median(runs.map((x) => x.catchUpMs)))} after the target came back; ${round(shippingRate, 1)} MiB/s from the first byte shipped)`,
        baseline: `cp + sync of the same blobs to the target's disk: ${round(cpRate, 1)} MiB/s (${seconds(median(runs.map((x) => x.cpMs)))})`,
        ratio: round(catchUpRate / cpRate),
        details: { fileBytes: OUTAGE_FILE_BYTES, files: count, parallelUploads: OUTAGE_PARALLEL, runs },
      };
    });
  } finally {
    await target.remove();
  }
}

// ---------------------------------------------------------------------------------------------
// 4: a rebuild from the copy alone
// ---------------------------------------------------------------------------------------------

const REBUILD_FILE_BYTES = KiB;
const SEED_PARALLEL = 16;

/** Distinct bytes per file. */
function seedContent(i: number): Buffer {
  const bytes = Buffer.alloc(REBUILD_FILE_BYTES, i % 251);
  bytes.write(`seeded file ${i}\n`);
  return bytes;
}

/**
 * `count` files put into the deployment's channel through the service's own file service, in this
 * process (the same createService as `wallet-admin serve`, no HTTP): many times faster than PUTs
 * over HTTP, the same records and blobs (an upload's row, its audit entry, its blob).
 */
async function seedInProcess(deployment: Deployment, count: number, context: BenchContext): Promise<void> {
  const started = performance.now();
  const config = loadConfig({
    ...deployment.env,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
    AUTH_RECOVERY_THREADS: '0',
  });
  const quiet = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const service = await createService(config, createLogger('warn', quiet));
  try {
    const admin = await service.store.findAdminByWallet(deployment.address.toLowerCase());
    const channel = await service.store.getChannel(deployment.channelId);
    if (!admin || !channel) throw new Error('offsite-rebuild: the deployment has no owner or channel');
    let next = 0;
    await Promise.all(
      Array.from({ length: SEED_PARALLEL }, async () => {
        while (next < count) {
          const i = next++;
          const folder = `d${String(Math.floor(i / 1000)).padStart(3, '0')}`;
          await service.files.files.put(
            channel,
            { adminId: admin.id },
            filePath(folder, `f${String(i).padStart(6, '0')}.bin`),
            Readable.from([seedContent(i)]),
            'application/octet-stream',
          );
        }
      }),
    );
  } finally {
    await service.close();
  }
  context.log(`offsite-rebuild: seeded ${thousands(count)} files in ${seconds(performance.now() - started)}`);
}

/** `wallet-admin offsite restore` of this checkout, as an operator runs it; answers its summary and its time. */
async function offsiteRestore(
  target: OffsiteTarget,
  destination: { dataDir: string; databaseUrl?: string },
): Promise<{ ms: number; summary: { rows: number; blobs: number; bytes: number } }> {
  const args = [
    cliOf(ROOT),
    'offsite',
    'restore',
    '--from',
    target.url,
    '--identity',
    target.identityFile,
    '--data-dir',
    destination.dataDir,
    ...(destination.databaseUrl ? ['--database-url', destination.databaseUrl] : []),
    '--json',
  ];
  const started = performance.now();
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, args, { cwd: ROOT, env: processEnv({}), maxBuffer: 64 * MiB }));
  } catch (error) {
    const { stdout: out, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`wallet-admin offsite restore failed: ${(out ?? '') + (stderr ?? String(error))}`.slice(0, 2000));
  }
  const ms = performance.now() - started;
  return { ms, summary: JSON.parse(stdout) as { rows: number; blobs: number; bytes: number } };
}

/**
 * A service of `count` files (1 KiB, seeded in process) ships its copy (its first snapshot, made
 * when it starts with OFFSITE_URL) and stops: the machine is lost. Then, per run, `wallet-admin
 * offsite restore` into a fresh DATA_DIR (and, on PostgreSQL, a fresh database), timed, against
 * the baseline: on SQLite a file copy of metadata.sqlite and of the storage folder, then `sync`; on
 * PostgreSQL `pg_restore` of a `pg_dump -Fc` taken before (not timed) into a fresh database, and
 * the copy of the storage folder, then `sync`.
 */
export async function offsiteRebuild(context: BenchContext, engine: Engine, count: number): Promise<Row> {
  const target = await createOffsiteTarget();
  const deployment = await createDeployment(engine);
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'wa-bench-rebuild-'));
  try {
    await seedInProcess(deployment, count, context);
    const shipStarted = performance.now();
    const server = await startService(
      { ...deployment.env, ...target.env, ...context.serviceEnv },
      path.join(context.logDir, `service-${engine}-rebuild-${count}.log`),
    );
    let shipped: OffsiteGauges;
    try {
      shipped = (await waitCaughtUp(server, { everyMs: 100, timeoutMs: 3_600_000, what: 'offsite-rebuild (the snapshot)' })).gauges;
    } finally {
      await server.stop();
    }
    const shipMs = performance.now() - shipStarted;
    context.log(`offsite-rebuild: ${thousands(count)} files shipped (${round(shipped.bytesShipped / MiB, 1)} MiB) in ${seconds(shipMs)}`);

    const dump = path.join(scratch, 'metadata.dump');
    if (engine === 'postgres') await run('pg_dump', ['-Fc', '-f', dump, deployment.env.DATABASE_URL!]);
    const storage = path.join(deployment.dataDir, 'storage');
    const storageBytes = (await Promise.all((await filesBelow(storage)).map((f) => stat(path.join(storage, f))))).reduce(
      (sum, s) => sum + s.size,
      0,
    );
    const runs = Math.min(context.runs, count >= 100_000 ? 1 : context.runs);
    const restoreMs: number[] = [];
    const baselineMs: number[] = [];
    let summary: { rows: number; blobs: number; bytes: number } | undefined;
    for (let r = 1; r <= runs; r++) {
      // The rebuild: a new DATA_DIR (and database) that holds nothing.
      const dataDir = path.join(scratch, `rebuilt-${r}`);
      const database = engine === 'postgres' ? await createTestDatabase() : undefined;
      try {
        await run('sync');
        const restored = await offsiteRestore(target, { dataDir, ...(database ? { databaseUrl: database.url } : {}) });
        restoreMs.push(restored.ms);
        summary = restored.summary;
        if (summary.blobs < count) throw new Error(`offsite-rebuild: the rebuild brought back ${summary.blobs} files, not ${count}`);
      } finally {
        await database?.drop();
        await rm(dataDir, { recursive: true, force: true });
      }

      // The baseline: the database as its own tools copy it, and the same bytes copied.
      const copyDir = path.join(scratch, `copied-${r}`);
      await mkdir(copyDir);
      const copyDatabase = engine === 'postgres' ? await createTestDatabase() : undefined;
      try {
        await run('sync');
        const started = performance.now();
        if (copyDatabase) await run('pg_restore', ['--no-owner', '-d', copyDatabase.url, dump]);
        else await run('cp', [path.join(deployment.dataDir, 'metadata.sqlite'), copyDir]);
        await run('cp', ['-r', storage, copyDir]);
        await run('sync');
        baselineMs.push(performance.now() - started);
      } finally {
        await copyDatabase?.drop();
        await rm(copyDir, { recursive: true, force: true });
      }
      context.log(
        `offsite-rebuild ${thousands(count)} files, ${engine}, run ${r}: offsite restore ${seconds(restoreMs.at(-1)!)}; baseline ${seconds(baselineMs.at(-1)!)}`,
      );
    }
    const restore = median(restoreMs);
    const baseline = median(baselineMs);
    const baselineName = engine === 'postgres' ? 'pg_restore (of a pg_dump -Fc)' : 'cp metadata.sqlite';
    return {
      scenario: `offsite-rebuild (${thousands(count)} files of 1 KiB)`,
      engine,
      measured: `offsite restore ${seconds(restore)} (${thousands(summary!.rows)} records, ${thousands(summary!.blobs)} files); shipped in ${seconds(shipMs)}`,
      baseline: `${baselineName} + cp -r storage + sync: ${seconds(baseline)}`,
      ratio: round(restore / baseline, 1),
      details: {
        files: count,
        fileBytes: REBUILD_FILE_BYTES,
        storageBytes,
        copyBytes: shipped.bytesShipped,
        shipMs,
        restoreMs,
        baselineMs,
        summary,
      },
    };
  } finally {
    await deployment.remove();
    await target.remove();
    await rm(scratch, { recursive: true, force: true });
  }
}

export const offsiteScenarios: Scenario[] = [
  {
    name: 'offsite-write',
    summary:
      'upload-small with and without an off-site target (file://), interleaved: uploads/s and CPU per upload (shipping included); the lag sampled during the load',
    run: async (c) => [
      ...(await offsiteWrite(c, 'sqlite')),
      // PostgreSQL's capture triggers too, except in the smoke run (which only proves the scenario works).
      ...(c.smoke ? [] : await offsiteWrite(c, 'postgres')),
    ],
  },
  {
    name: 'offsite-catch-up',
    summary: 'uploads queued while the off-site target is away, then the time until lag 0: MiB/s against cp + sync of the same blobs',
    run: async (c) => [await offsiteCatchUp(c, 'sqlite', c.smoke ? 8 : 256)],
  },
  {
    name: 'offsite-rebuild',
    summary:
      '`offsite restore` of a service of 10,000 and 100,000 files from its copy, against cp of metadata.sqlite (or pg_restore) + cp -r of the storage',
    run: async (c) => {
      const rows: Row[] = [];
      for (const count of c.smoke ? [200] : [10_000, 100_000]) rows.push(await offsiteRebuild(c, 'sqlite', count));
      for (const count of c.smoke ? [] : [10_000]) rows.push(await offsiteRebuild(c, 'postgres', count));
      return rows;
    },
  },
];
