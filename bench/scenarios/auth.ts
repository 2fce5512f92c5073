import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { createAddressRecoverer } from '../../src/auth/signature/address-recoverer.ts';
import { parseRecoverableSignature } from '../../src/auth/signature/parse-signature.ts';
import { personalMessageHash } from '../../src/auth/signature/personal-message-hash.ts';
import type { Deployment, Engine } from '../lib/deployment.ts';
import { checked, type LoadTarget, type Measured, measureInterleaved, runLoad, unexpectedAnswers } from '../lib/load.ts';
import type { LoadPlan } from '../lib/load-plan.ts';
import { PoolSigner } from '../lib/pool-signer.ts';
import { type BenchContext, cpuPerRequest, perSecond, type Row, round, type Scenario } from '../lib/scenario.ts';
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

const options = (context: BenchContext) => ({ runs: context.runs, warmupSeconds: context.warmupSeconds });

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
const cpuRatio = (side: Measured, baseline: Measured) => round(side.cpuMicrosecondsPerRequest / baseline.cpuMicrosecondsPerRequest);

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

/**
 * auth-warm: the service under one repeated sign-in, interleaved with the bare contract route and
 * the bare Fastify route. With `withoutRequestLog`, a second service with LOG_LEVEL=warn (no line
 * per request) joins the same rounds, and a second row says what the default request log costs.
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
    const [service, contract, bare, quiet] = await measureInterleaved(
      [target(server, context, { headers }), target(contractServer, context), target(bareServer, context), ...quietTarget],
      options(context),
    );
    checked(service!, [200], 'auth-warm');
    checked(contract!, [200], 'bare contract route');
    checked(bare!, [200], 'bare route');
    const ratio = service!.median.requestsPerSecond / contract!.median.requestsPerSecond;
    const rows: Row[] = [
      {
        scenario: 'auth-warm',
        engine,
        measured: figures(service!),
        baseline: `bare contract route ${figures(contract!)} (bare Fastify ${figures(bare!)})`,
        ratio: round(ratio),
        cpuRatio: cpuRatio(service!, contract!),
        target: '≥ 0.9 × bare contract route',
        met: ratio >= 0.9,
        details: { service, contract, bare },
      },
    ];
    if (quiet) {
      checked(quiet, [200], 'auth-warm, request log off');
      rows.push({
        scenario: 'auth-warm, request log off (LOG_LEVEL=warn)',
        engine,
        measured: figures(quiet),
        baseline: `bare contract route ${figures(contract!)}; with the request log (the default) ${figures(service!)}`,
        ratio: round(quiet.median.requestsPerSecond / contract!.median.requestsPerSecond),
        cpuRatio: cpuRatio(quiet, contract!),
        details: {
          without: quiet,
          withLog: service,
          contract,
          logCostRatio: round(service!.median.requestsPerSecond / quiet.median.requestsPerSecond),
          logCpuRatio: cpuRatio(service!, quiet),
        },
      });
    }
    return rows;
  });
}

/** 1 / (1/R + 1/B): a recovery and the bare contract answer, one after the other, per request. */
const ceilingOf = (recoveries: number, contractRate: number) => 1 / (1 / recoveries + 1 / contractRate);

/** Requests a run may send at most: the pool must be larger, so that no sign-in is sent twice. */
const poolSize = (context: BenchContext, ceiling: number) => Math.ceil(ceiling * context.durationSeconds * 1.3);

/**
 * auth-cold: every request a new sign-in, interleaved with the bare contract route (B of the
 * ceiling) and Express + viem (the reference).
 */
export async function authCold(context: BenchContext, engine: Engine): Promise<Row> {
  const recoveries = await once('recoveries', () => recoveriesPerSecond());
  const { service, contract, reference } = await withServers(context, async (servers) => {
    const { server, deployment } = await servers.service(engine);
    const contractServer = await startBareContract(context, servers, server, await warmHeaders(deployment, domainOf(server)));
    const referenceServer = await servers.baseline('express-viem');
    // The pool is signed before each run, sized from the ceiling; B, not measured yet, comes from a
    // run of the contract route of warm-up length (it warms the route up too).
    const contractWarmup = await runLoad({ ...plan(contractServer, context), durationSeconds: context.warmupSeconds });
    const size = poolSize(context, ceilingOf(recoveries, contractWarmup.requestsPerSecond));
    const [service, contract, reference] = await measureInterleaved(
      [
        target(server, context, { siwe: { privateKey: deployment.privateKey, domain: domainOf(server), size } }),
        target(contractServer, context),
        target(referenceServer, context, {
          siwe: { privateKey: generatePrivateKey(), domain: domainOf(referenceServer), size: poolSize(context, 2000) },
        }),
      ],
      options(context),
    );
    return {
      service: checked(service!, [200], 'auth-cold'),
      contract: checked(contract!, [200], 'bare contract route'),
      reference: checked(reference!, [200], 'reference'),
    };
  });
  const ceiling = ceilingOf(recoveries, contract.median.requestsPerSecond);
  // The ceiling's CPU time per request: a recovery's (one core busy R times a second) and the bare answer's.
  const ceilingCpu = 1e6 / recoveries + contract.cpuMicrosecondsPerRequest;
  const rate = service.median.requestsPerSecond;
  return {
    scenario: 'auth-cold',
    engine,
    measured: figures(service),
    baseline: `ceiling ${perSecond(ceiling)}, ${cpuPerRequest(ceilingCpu)} (R ${perSecond(recoveries)}, B = bare contract route ${figures(contract)}); Express + viem ${figures(reference)}`,
    ratio: round(rate / ceiling),
    cpuRatio: round(service.cpuMicrosecondsPerRequest / ceilingCpu),
    target: '≥ 0.8 × ceiling and ≥ 15 × reference',
    met: rate >= 0.8 * ceiling && rate >= 15 * reference.median.requestsPerSecond,
    details: {
      service,
      ceiling,
      ceilingCpuMicrosecondsPerRequest: ceilingCpu,
      recoveriesPerSecond: recoveries,
      contract,
      reference,
      referenceRatio: round(rate / reference.median.requestsPerSecond),
      referenceCpuRatio: cpuRatio(service, reference),
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
  },
  {
    name: 'auth-cold',
    summary: 'every request a different valid SIWE sign-in vs the ceiling 1/(1/R + 1/B) and Express + viem verifyMessage',
    run: async (c) => [await authCold(c, 'sqlite')],
  },
  {
    name: 'bad-signature-flood',
    summary: 'p99 of a steady valid client with and without a client flooding invalid signatures',
    run: (c) => badSignatureFlood(c, 'sqlite'),
  },
];
