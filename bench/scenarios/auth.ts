import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { createAddressRecoverer } from '../../src/auth/signature/address-recoverer.ts';
import { parseRecoverableSignature } from '../../src/auth/signature/parse-signature.ts';
import { personalMessageHash } from '../../src/auth/signature/personal-message-hash.ts';
import { type Checkout, currentCheckout } from '../lib/checkout.ts';
import type { Deployment, Engine } from '../lib/deployment.ts';
import {
  checked,
  cpuOver,
  type LoadTarget,
  type Measured,
  measureInterleaved,
  pairwise,
  rateOver,
  runLoad,
  spreadOf,
  unexpectedAnswers,
} from '../lib/load.ts';
import type { LoadPlan } from '../lib/load-plan.ts';
import { PoolSigner } from '../lib/pool-signer.ts';
import { type BenchContext, cpuPerRequest, median, perSecond, type Row, round, type Scenario, spreadText } from '../lib/scenario.ts';
import { type ServerGroup, withServers, withService } from '../lib/served.ts';
import type { RunningServer } from '../lib/servers.ts';
import { signInHeaders } from '../lib/sign-in.ts';

const CONNECTIONS = 50;

/** One valid SIWE sign-in, sent again and again: after the first, a signature-cache hit. */
function warmHeaders(deployment: Deployment, domain: string): Promise<Record<string, string>> {
  return signInHeaders(deployment.privateKey, domain, 'benchwarm0000001', 3600_000);
}

const domainOf = (server: RunningServer) => `127.0.0.1:${server.port}`;

function plan(server: RunningServer, context: BenchContext, extra: Partial<LoadPlan> = {}): LoadPlan {
  return {
    url: server.baseUrl,
    method: 'GET',
    paths: ['/api/auth/test'],
    connections: CONNECTIONS,
    durationSeconds: context.durationSeconds,
    ...extra,
  };
}

/** A server under auth load: its process and the plan of each of its runs. */
const target = (server: RunningServer, context: BenchContext, extra: Partial<LoadPlan> = {}): LoadTarget => ({
  pid: server.pid,
  plan: () => plan(server, context, extra),
});

/** Computed once per bench run, whichever scenarios need it. */
const memo = new Map<string, Promise<unknown>>();
function once<T>(key: string, compute: () => Promise<T>): Promise<T> {
  if (!memo.has(key)) memo.set(key, compute());
  return memo.get(key) as Promise<T>;
}

/**
 * The service's answer to GET /api/auth/test with `headers`, byte for byte: status, header lines
 * in order (without those Node writes per connection), body. What bare-contract answers.
 */
function captureAnswer(server: RunningServer, headers: Record<string, string>): Promise<CapturedAnswer> {
  const perConnection = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  return new Promise((resolve, reject) => {
    http
      .get(`${server.baseUrl}/api/auth/test`, { headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          if (response.statusCode !== 200) return reject(new Error(`the answer to capture is ${response.statusCode}`));
          const lines: [string, string][] = [];
          for (let i = 0; i < response.rawHeaders.length; i += 2) {
            const name = response.rawHeaders[i]!;
            if (!perConnection.has(name.toLowerCase())) lines.push([name, response.rawHeaders[i + 1]!]);
          }
          resolve({ status: 200, headers: lines, body: Buffer.concat(chunks).toString('utf8') });
        });
      })
      .on('error', reject);
  });
}

interface CapturedAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

/**
 * B: a bare Fastify route answering the service's very answer (captured from `service`), without
 * authentication or logging: the baseline of auth-warm and half of auth-cold's ceiling, so that the
 * contract's own headers and body weigh on both sides alike. Started beside the service, so that
 * their runs interleave.
 */
async function startBareContract(
  context: BenchContext,
  servers: ServerGroup,
  service: RunningServer,
  headers: Record<string, string>,
): Promise<RunningServer> {
  const answerFile = path.join(context.logDir, 'contract-answer.json');
  await writeFile(answerFile, JSON.stringify(await captureAnswer(service, headers)));
  return servers.baseline('bare-contract', { ANSWER_FILE: answerFile });
}

/** "10,220 req/s, 95 µs CPU/request": a side's requests/s (its median run) and its CPU time per request. */
const figures = (measured: Measured) =>
  `${perSecond(measured.median.requestsPerSecond)}, ${cpuPerRequest(measured.cpuMicrosecondsPerRequest)}`;

/** R: native secp256k1 recoveries of distinct signatures per second, one process, nothing else. */
export async function recoveriesPerSecond(seconds = 3): Promise<number> {
  const signer = await PoolSigner.create(generatePrivateKey());
  const recoverer = createAddressRecoverer({ onFallback: () => undefined });
  const samples = Array.from({ length: 2000 }, (_, i) => {
    const message = Buffer.from(`recovery sample ${i}`);
    return { digest: personalMessageHash(message), signature: parseRecoverableSignature(signer.sign(message.toString())) };
  });
  let count = 0;
  const started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    for (const sample of samples) recoverer.recover(sample.digest, sample.signature);
    count += samples.length;
  }
  return count / ((performance.now() - started) / 1000);
}

/** Requests a run may send at most: the pool must be larger, so that no sign-in is sent twice. */
const poolSize = (context: BenchContext, rate: number) => Math.ceil(rate * context.durationSeconds * 1.3);

/** The same target at a steady `rate` (requests/s over all connections); a pool of sign-ins sized for it. */
function atRate(target: LoadTarget, rate: number, context: BenchContext): LoadTarget {
  return {
    pid: target.pid,
    plan: () => {
      const plan = target.plan();
      return { ...plan, overallRate: rate, ...(plan.siwe ? { siwe: { ...plan.siwe, size: poolSize(context, rate) } } : {}) };
    },
  };
}

/**
 * The targets' runs in balanced rounds (A B, B A, A B, …; at least MIN_PAIRS), at full speed and
 * then at a steady rate that every side sustained: half the slowest side's median requests/s. At a
 * fixed rate each side answers the same requests in the same time, so the CPU per request compares
 * the same work, without a faster side paying for its own speed (more wake-ups, fuller batches).
 */
async function inPairs(
  targets: LoadTarget[],
  context: BenchContext,
  fixedCount = targets.length,
  beforeRun?: (phase: 'full' | 'fixed', i: number, round: number) => Promise<void>,
): Promise<{ full: Measured[]; fixed: Measured[]; rate: number }> {
  const runs = pairCount(context);
  const full = await measureInterleaved(targets, {
    runs,
    warmupSeconds: context.warmupSeconds,
    balanced: true,
    beforeRun: beforeRun && ((i, round) => beforeRun('full', i, round)),
  });
  const rate = steadyRate(full.slice(0, fixedCount));
  const fixed = await measureInterleaved(
    targets.slice(0, fixedCount).map((t) => atRate(t, rate, context)),
    { runs, warmupSeconds: 0, balanced: true, beforeRun: beforeRun && ((i, round) => beforeRun('fixed', i, round)) },
  );
  return { full, fixed, rate };
}

const pairCount = (context: BenchContext) => (context.smoke ? 1 : Math.max(context.runs, MIN_PAIRS));
/** Half the slowest side's median requests/s, in hundreds: a rate every side sustained with room to spare. */
const steadyRate = (sides: Measured[]) =>
  Math.max(100, Math.round((0.5 * Math.min(...sides.map((m) => m.median.requestsPerSecond))) / 100) * 100);

/** Every comparison in these scenarios: at least this many rounds, so that a median of pairs means something. */
const MIN_PAIRS = 5;

/** The CPU µs per request the request log line costs, per round: the service with it less the one without. */
const logLineCost = (withLog: Measured, without: Measured) =>
  pairwise(withLog, without, (a, b) => a.cpuMicrosecondsPerRequest - b.cpuMicrosecondsPerRequest);

/**
 * auth-warm: the service under one repeated sign-in, interleaved with the bare contract route and
 * the bare Fastify route. With `withoutRequestLog`, a second service with LOG_LEVEL=warn (no line
 * per request) joins the same rounds, and further rows say what the default request log costs.
 * Each ratio is the median of the rounds' own ratios (pairs of runs back to back), with their range.
 */
export async function authWarm(context: BenchContext, engine: Engine, withoutRequestLog = false): Promise<Row[]> {
  return withServers(context, async (servers) => {
    const { server, deployment } = await servers.service(engine);
    const headers = await warmHeaders(deployment, domainOf(server));
    const contractServer = await startBareContract(context, servers, server, headers);
    const bareServer = await servers.baseline('bare-fastify');
    const quietServed = withoutRequestLog
      ? await servers.service(engine, { env: { LOG_LEVEL: 'warn' }, name: 'request-log-off' })
      : undefined;
    const quietTarget = quietServed
      ? [target(quietServed.server, context, { headers: await warmHeaders(quietServed.deployment, domainOf(quietServed.server)) })]
      : [];
    const serviceTarget = target(server, context, { headers });
    const contractTarget = target(contractServer, context);
    // Full speed with the bare Fastify route too (the most this host serves); at the fixed rate without it.
    const runs = pairCount(context);
    const [service, contract, bare, quiet] = await measureInterleaved(
      [serviceTarget, contractTarget, target(bareServer, context), ...quietTarget],
      { runs, warmupSeconds: context.warmupSeconds, balanced: true },
    );
    checked(service!, [200], 'auth-warm');
    checked(contract!, [200], 'bare contract route');
    checked(bare!, [200], 'bare route');
    if (quiet) checked(quiet, [200], 'auth-warm, request log off');
    const rate = steadyRate([service!, contract!, ...(quiet ? [quiet] : [])]);
    const [fixedService, fixedContract, fixedQuiet] = await measureInterleaved(
      [serviceTarget, contractTarget, ...quietTarget].map((t) => atRate(t, rate, context)),
      { runs, warmupSeconds: 0, balanced: true },
    );
    checked(fixedService!, [200], 'auth-warm at a fixed rate');
    checked(fixedContract!, [200], 'bare contract route at a fixed rate');
    const cpu = pairwise(service!, contract!, cpuOver);
    const fixedCpu = pairwise(fixedService!, fixedContract!, cpuOver);
    const rows: Row[] = [
      {
        scenario: 'auth-warm',
        engine,
        measured: `${figures(service!)}; at ${perSecond(rate)} ${cpuPerRequest(fixedService!.cpuMicrosecondsPerRequest)}`,
        baseline: `bare contract route ${figures(contract!)}, at ${perSecond(rate)} ${cpuPerRequest(fixedContract!.cpuMicrosecondsPerRequest)} (bare Fastify ${figures(bare!)}); CPU ×: full speed ${spreadText(cpu)}, at ${perSecond(rate)} ${spreadText(fixedCpu)}`,
        ratio: round(pairwise(service!, contract!, rateOver).median),
        cpuRatio: round(cpu.median),
        target: 'CPU ≤ 1.4 × bare contract route (median of pairs, full speed and fixed rate)',
        met: cpu.median <= 1.4 && fixedCpu.median <= 1.4,
        details: {
          service,
          contract,
          bare,
          cpuPairs: cpu,
          fixedRate: { rate, service: fixedService, contract: fixedContract, cpuPairs: fixedCpu },
        },
      },
    ];
    if (quiet && fixedQuiet) {
      checked(fixedQuiet, [200], 'auth-warm, request log off, at a fixed rate');
      const quietCpu = pairwise(quiet, contract!, cpuOver);
      const fixedQuietCpu = pairwise(fixedQuiet, fixedContract!, cpuOver);
      rows.push({
        scenario: 'auth-warm, request log off (LOG_LEVEL=warn)',
        engine,
        measured: `${figures(quiet)}; at ${perSecond(rate)} ${cpuPerRequest(fixedQuiet.cpuMicrosecondsPerRequest)}`,
        baseline: `bare contract route ${figures(contract!)}; CPU ×: full speed ${spreadText(quietCpu)}, at ${perSecond(rate)} ${spreadText(fixedQuietCpu)}`,
        ratio: round(pairwise(quiet, contract!, rateOver).median),
        cpuRatio: round(quietCpu.median),
        target: 'CPU ≤ 1.2 × bare contract route (median of pairs, full speed and fixed rate)',
        met: quietCpu.median <= 1.2 && fixedQuietCpu.median <= 1.2,
        details: { without: quiet, contract, cpuPairs: quietCpu, fixedRate: { rate, without: fixedQuiet, cpuPairs: fixedQuietCpu } },
      });
      const line = logLineCost(service!, quiet);
      const fixedLine = logLineCost(fixedService!, fixedQuiet);
      rows.push({
        scenario: 'auth-warm, the request log line',
        engine,
        measured: `${spreadText(line, 1)} µs CPU/request at full speed; ${spreadText(fixedLine, 1)} µs at ${perSecond(rate)}`,
        baseline: 'the service with the request log (the default) less the same service with LOG_LEVEL=warn, round by round',
        target: '≤ 4 µs CPU/request (median of pairs, full speed and fixed rate)',
        met: line.median <= 4 && fixedLine.median <= 4,
        details: { fullSpeed: line, fixedRate: { rate, ...fixedLine } },
      });
    }
    return rows;
  });
}

/** 1 / (1/R + 1/B): a recovery and the bare contract answer, one after the other, per request. */
const ceilingOf = (recoveries: number, contractRate: number) => 1 / (1 / recoveries + 1 / contractRate);

/**
 * auth-cold: every request a new sign-in, interleaved with the bare contract route (B of the
 * ceiling) and Express + viem (the reference).
 */
export async function authCold(context: BenchContext, engine: Engine): Promise<Row> {
  // R is read in every round, right before the bare contract route's run (the ceiling's two parts
  // back to back), so that a swing of the host falls on the ceiling as on the service. This first
  // reading only sizes the pools.
  const sizingRecoveries = await recoveriesPerSecond(1);
  const recoveries = { full: [] as number[], fixed: [] as number[] };
  const readRecoveries = async (phase: 'full' | 'fixed', i: number, round: number) => {
    if (i === CONTRACT) recoveries[phase][round] = await recoveriesPerSecond(context.smoke ? 1 : 2);
  };
  const { full, fixed, rate } = await withServers(context, async (servers) => {
    const { server, deployment } = await servers.service(engine);
    const contractServer = await startBareContract(context, servers, server, await warmHeaders(deployment, domainOf(server)));
    const referenceServer = await servers.baseline('express-viem');
    // The pool is signed before each run, sized from the ceiling; B, not measured yet, comes from a
    // run of the contract route of warm-up length (it warms the route up too).
    const contractWarmup = await runLoad({ ...plan(contractServer, context), durationSeconds: context.warmupSeconds });
    // Twice the ceiling: the service checks on worker threads and may pass it, and a warm-up run of
    // the contract route (2 s in --smoke) can read B low; CI's smoke run once spent a pool of 1.3 ×.
    const size = poolSize(context, 2 * ceilingOf(sizingRecoveries, contractWarmup.requestsPerSecond));
    const measured = await inPairs(
      [
        target(server, context, { siwe: { privateKey: deployment.privateKey, domain: domainOf(server), size } }),
        target(contractServer, context),
        target(referenceServer, context, {
          siwe: { privateKey: generatePrivateKey(), domain: domainOf(referenceServer), size: poolSize(context, 2000) },
        }),
      ],
      context,
      2, // the reference's rate is far below the others': at the fixed rate, the service and B only
      readRecoveries,
    );
    for (const [i, what] of ['auth-cold', 'bare contract route', 'reference'].entries()) checked(measured.full[i]!, [200], what);
    for (const [i, what] of ['auth-cold', 'bare contract route'].entries()) checked(measured.fixed[i]!, [200], `${what} at a fixed rate`);
    return measured;
  });
  const [service, contract, reference] = full as [Measured, Measured, Measured];
  const [fixedService, fixedContract] = fixed as [Measured, Measured];
  // The ceiling's CPU time per request in round i: a recovery's (one core busy R times a second, R
  // of that round) and the bare answer's (the same round's contract run).
  const ceilingCpuOf = (runs: Measured, r: number[]) => runs.runs.map((run, i) => 1e6 / r[i]! + run.cpuMicrosecondsPerRequest);
  const overCeiling = (a: Measured, b: Measured, r: number[]) => {
    const ceilings = ceilingCpuOf(b, r);
    return spreadOf(a.runs.map((run, i) => run.cpuMicrosecondsPerRequest / ceilings[i]!));
  };
  const cpu = overCeiling(service, contract, recoveries.full);
  const fixedCpu = overCeiling(fixedService, fixedContract, recoveries.fixed);
  const r = spreadOf(recoveries.full);
  const ceiling = ceilingOf(r.median, contract.median.requestsPerSecond);
  const ceilingCpu = median(ceilingCpuOf(contract, recoveries.full));
  const speed = service.median.requestsPerSecond;
  return {
    scenario: 'auth-cold',
    engine,
    measured: `${figures(service)}; at ${perSecond(rate)} ${cpuPerRequest(fixedService.cpuMicrosecondsPerRequest)}`,
    baseline: `ceiling ${perSecond(ceiling)}, ${cpuPerRequest(ceilingCpu)} (R ${perSecond(r.median, 'recoveries/s')} (${Math.round(r.min).toLocaleString('en-US')}–${perSecond(r.max, 'over the rounds')}), ${cpuPerRequest(1e6 / r.median)} each; B = bare contract route ${figures(contract)}, at ${perSecond(rate)} ${cpuPerRequest(fixedContract.cpuMicrosecondsPerRequest)}); CPU × ceiling's: full speed ${spreadText(cpu)}, at ${perSecond(rate)} ${spreadText(fixedCpu)}; Express + viem ${figures(reference)}`,
    ratio: round(
      spreadOf(service.runs.map((run, i) => run.requestsPerSecond / ceilingOf(recoveries.full[i]!, contract.runs[i]!.requestsPerSecond)))
        .median,
    ),
    cpuRatio: round(cpu.median),
    target: "CPU ≤ 1.25 × the ceiling's (median of pairs, full speed and fixed rate) and ≥ 15 × reference",
    met: cpu.median <= 1.25 && fixedCpu.median <= 1.25 && speed >= 15 * reference.median.requestsPerSecond,
    details: {
      service,
      ceiling,
      ceilingCpuMicrosecondsPerRequest: ceilingCpu,
      recoveriesPerSecond: r,
      contract,
      reference,
      cpuPairs: cpu,
      fixedRate: {
        rate,
        service: fixedService,
        contract: fixedContract,
        cpuPairs: fixedCpu,
        recoveriesPerSecond: spreadOf(recoveries.fixed),
      },
      referenceRatio: round(speed / reference.median.requestsPerSecond),
      referenceCpuRatio: round(service.cpuMicrosecondsPerRequest / reference.cpuMicrosecondsPerRequest),
    },
  };
}

/** The bare contract route's place among auth-cold's targets: R is read right before its runs. */
const CONTRACT = 1;

/** B of the pool's size in a comparison of two checkouts, which measures no bare route: above what this host served. */
const AGAINST_CONTRACT_RATE = 20_000;

/**
 * auth-warm or auth-cold (`cold`) on this checkout's service and on `other`'s, each on a fresh
 * deployment made by its own CLI, in balanced pairs at full speed and at a fixed rate: one row with
 * both figures and the medians of the pairs' ratios (this ÷ other) with their range.
 */
async function authAgainst(context: BenchContext, engine: Engine, other: Checkout, cold: boolean): Promise<Row> {
  const current = await currentCheckout();
  const recoveries = cold ? await once('recoveries', () => recoveriesPerSecond()) : 0;
  const { full, fixed, rate } = await withServers(context, async (servers) => {
    const targets: LoadTarget[] = [];
    for (const [checkout, name] of [
      [current, 'this'],
      [other, 'other'],
    ] as const) {
      const { server, deployment } = await servers.service(engine, { checkout, name });
      const load: Partial<LoadPlan> = cold
        ? {
            siwe: {
              privateKey: deployment.privateKey,
              domain: domainOf(server),
              size: poolSize(context, ceilingOf(recoveries, AGAINST_CONTRACT_RATE)),
            },
          }
        : { headers: await warmHeaders(deployment, domainOf(server)) };
      targets.push(target(server, context, load));
    }
    const measured = await inPairs(targets, context);
    for (const m of [...measured.full, ...measured.fixed]) checked(m, [200], cold ? 'auth-cold' : 'auth-warm');
    return measured;
  });
  const [mine, theirs] = full as [Measured, Measured];
  const [fixedMine, fixedTheirs] = fixed as [Measured, Measured];
  const cpu = pairwise(mine, theirs, cpuOver);
  const fixedCpu = pairwise(fixedMine, fixedTheirs, cpuOver);
  const speed = pairwise(mine, theirs, rateOver);
  const side = (label: string, m: Measured, f: Measured) =>
    `${label}: ${figures(m)}; at ${perSecond(rate)} ${cpuPerRequest(f.cpuMicrosecondsPerRequest)}`;
  return {
    scenario: `${cold ? 'auth-cold' : 'auth-warm'} (CPU this ÷ other: full speed ${spreadText(cpu)}, at ${perSecond(rate)} ${spreadText(fixedCpu)}; req/s ${spreadText(speed)})`,
    engine,
    measured: side(`this (${current.label})`, mine, fixedMine),
    baseline: side(`other (${other.label})`, theirs, fixedTheirs),
    ratio: round(speed.median),
    cpuRatio: round(cpu.median),
    details: {
      this: { checkout: current, measured: mine, fixedRate: fixedMine },
      other: { checkout: other, measured: theirs, fixedRate: fixedTheirs },
      rate,
      cpuPairs: cpu,
      fixedCpuPairs: fixedCpu,
      speedPairs: speed,
    },
  };
}

/**
 * A valid client at a fixed rate, alone and then beside a client flooding invalid signatures at
 * full speed (each one a recovery and a 401). Both come through a trusted proxy with their own
 * X-Forwarded-For, as behind a load balancer. Run twice: with the failed-authentication limit as
 * configured by default (the flood is soon answered 429 without a recovery), and with the limit
 * out of reach, so that every flooded request costs a recovery.
 */
export async function badSignatureFlood(context: BenchContext, engine: Engine): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [variant, limit] of [
    ['default limit', '100'],
    ['no limit', '1000000'],
  ] as const) {
    const result = await withService(context, engine, { TRUST_PROXY: '127.0.0.1', AUTH_FAIL_LIMIT: limit }, async (server, deployment) => {
      const valid = { ...(await warmHeaders(deployment, `127.0.0.1:${server.port}`)), 'X-Forwarded-For': '198.51.100.10' };
      const steady = plan(server, context, { headers: valid, connections: 10, overallRate: 500 });
      await runLoad({ ...steady, durationSeconds: context.warmupSeconds });
      const alone = await runLoad(steady);
      const flood = runLoad(
        plan(server, context, {
          connections: 20,
          headers: { 'X-Forwarded-For': '203.0.113.66' },
          siwe: {
            privateKey: deployment.privateKey,
            badKey: generatePrivateKey(),
            bad: true,
            domain: `127.0.0.1:${server.port}`,
            size: 20_000,
            reusable: true,
          },
        }),
      );
      // The flood's pool is signed before its clock starts: let it begin before measuring.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const beside = await runLoad(steady);
      const flooded = await flood;
      for (const run of [alone, beside])
        if (unexpectedAnswers(run, [200]) > 0)
          throw new Error(`flood (${variant}): valid requests failed: ${JSON.stringify(run.statusCounts)}`);
      return { alone, beside, flooded };
    });
    const ratio = result.beside.latencyMs.p99 / Math.max(result.alone.latencyMs.p99, 1);
    rows.push({
      scenario: `bad-signature-flood (${variant})`,
      engine,
      measured: `valid p99 ${result.beside.latencyMs.p99} ms beside ${perSecond(result.flooded.requestsPerSecond)} of flood`,
      baseline: `valid p99 ${result.alone.latencyMs.p99} ms alone`,
      ratio: round(ratio),
      target: 'p99 ≤ 2 × alone',
      met: ratio <= 2,
      details: result,
    });
  }
  return rows;
}

export const authScenarios: Scenario[] = [
  {
    name: 'auth-warm',
    summary:
      'GET /api/auth/test with one valid header set repeated (signature-cache hits) vs a bare route answering the same bytes; again without the request log, to show its cost',
    run: (c) => authWarm(c, 'sqlite', true),
    against: async (c, other) => [await authAgainst(c, 'sqlite', other, false)],
  },
  {
    name: 'auth-cold',
    summary: 'every request a different valid SIWE sign-in vs the ceiling 1/(1/R + 1/B) and Express + viem verifyMessage',
    run: async (c) => [await authCold(c, 'sqlite')],
    against: async (c, other) => [await authAgainst(c, 'sqlite', other, true)],
  },
  {
    name: 'bad-signature-flood',
    summary: 'p99 of a steady valid client with and without a client flooding invalid signatures',
    run: (c) => badSignatureFlood(c, 'sqlite'),
  },
];
