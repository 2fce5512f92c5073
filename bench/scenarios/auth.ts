import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { createAddressRecoverer } from '../../src/auth/signature/address-recoverer.ts';
import { parseRecoverableSignature } from '../../src/auth/signature/parse-signature.ts';
import { personalMessageHash } from '../../src/auth/signature/personal-message-hash.ts';
import { createDeployment, type Deployment, type Engine } from '../lib/deployment.ts';
import { type Measured, measure, runLoad, unexpectedAnswers } from '../lib/load.ts';
import type { LoadPlan } from '../lib/load-plan.ts';
import { PoolSigner } from '../lib/pool-signer.ts';
import { type BenchContext, perSecond, type Row, round, type Scenario } from '../lib/scenario.ts';
import { type BaselineName, type RunningServer, startBaseline, startService } from '../lib/servers.ts';
import { signInHeaders } from '../lib/sign-in.ts';

const CONNECTIONS = 50;

/** A served deployment for the duration of `work`. */
async function withService<T>(
  context: BenchContext,
  engine: Engine,
  env: Record<string, string>,
  work: (server: RunningServer, deployment: Deployment) => Promise<T>,
): Promise<T> {
  const deployment = await createDeployment(engine);
  const server = await startService(
    { ...deployment.env, ...env, ...context.serviceEnv },
    path.join(context.logDir, `service-${engine}.log`),
    context.profileDir,
  );
  try {
    return await work(server, deployment);
  } finally {
    await server.stop();
    await deployment.remove();
  }
}

async function withBaseline<T>(
  context: BenchContext,
  name: BaselineName,
  work: (server: RunningServer) => Promise<T>,
  env: Record<string, string> = {},
): Promise<T> {
  const server = await startBaseline(name, path.join(context.logDir, `${name}.log`), env);
  try {
    return await work(server);
  } finally {
    await server.stop();
  }
}

/** One valid SIWE sign-in, sent again and again: after the first, a signature-cache hit. */
function warmHeaders(deployment: Deployment, domain: string): Promise<Record<string, string>> {
  return signInHeaders(deployment.privateKey, domain, 'benchwarm0000001', 3600_000);
}

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

function checked(measured: Measured, expected: number[], what: string): Measured {
  for (const run of measured.runs) {
    const wrong = unexpectedAnswers(run, expected);
    if (wrong > 0)
      throw new Error(
        `${what}: ${wrong} answers were not ${expected.join('/')}: ${JSON.stringify(run.statusCounts)}, ${run.errors} errors`,
      );
  }
  return measured;
}

const options = (context: BenchContext) => ({ runs: context.runs, warmupSeconds: context.warmupSeconds });

/** Baselines measured once per bench run, whichever scenarios need them. */
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
 * B: a bare Fastify route answering the service's very answer (captured from `server` the first
 * time), without authentication or logging: the baseline of auth-warm and half of auth-cold's
 * ceiling, so that the contract's own headers and body weigh on both sides alike.
 */
function bareContract(context: BenchContext, server: RunningServer, headers: Record<string, string>): Promise<Measured> {
  return once('bare-contract', async () => {
    const answerFile = path.join(context.logDir, 'contract-answer.json');
    await writeFile(answerFile, JSON.stringify(await captureAnswer(server, headers)));
    return withBaseline(
      context,
      'bare-contract',
      async (baseline) => checked(await measure(() => plan(baseline, context), options(context)), [200], 'bare contract route'),
      { ANSWER_FILE: answerFile },
    );
  });
}

/** The bare Fastify route's requests/s (a small JSON body): the most this machine serves through Fastify. */
function bareRoute(context: BenchContext): Promise<Measured> {
  return once('bare', () =>
    withBaseline(context, 'bare-fastify', async (server) =>
      checked(await measure(() => plan(server, context), options(context)), [200], 'bare route'),
    ),
  );
}

/** Express + viem verifyMessage on every request, with a pool of distinct sign-ins. */
function reference(context: BenchContext): Promise<Measured> {
  return once('reference', () =>
    withBaseline(context, 'express-viem', async (server) =>
      checked(
        await measure(
          () =>
            plan(server, context, {
              siwe: { privateKey: generatePrivateKey(), domain: `127.0.0.1:${server.port}`, size: poolSize(context, 2000) },
            }),
          options(context),
        ),
        [200],
        'reference',
      ),
    ),
  );
}

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

/** The service under one repeated sign-in, and the bare contract route (measured once per bench run). */
function authWarmRun(
  context: BenchContext,
  engine: Engine,
  env: Record<string, string>,
): Promise<{ service: Measured; contract: Measured }> {
  // Once per bench run: the row without the request log compares with the auth-warm row's own run.
  return once(`warm ${engine} ${JSON.stringify(env)}`, () =>
    withService(context, engine, env, async (server, deployment) => {
      const headers = await warmHeaders(deployment, `127.0.0.1:${server.port}`);
      // Measured while the service idles, so that both answer the same bytes on the same machine.
      const contract = await bareContract(context, server, headers);
      const service = checked(await measure(() => plan(server, context, { headers }), options(context)), [200], 'auth-warm');
      return { service, contract };
    }),
  );
}

export async function authWarm(context: BenchContext, engine: Engine): Promise<Row> {
  const bare = await bareRoute(context);
  const { service, contract } = await authWarmRun(context, engine, {});
  const ratio = service.median.requestsPerSecond / contract.median.requestsPerSecond;
  return {
    scenario: 'auth-warm',
    engine,
    measured: perSecond(service.median.requestsPerSecond),
    baseline: `bare contract route ${perSecond(contract.median.requestsPerSecond)} (bare Fastify ${perSecond(bare.median.requestsPerSecond)})`,
    ratio: round(ratio),
    target: '≥ 0.9 × bare contract route',
    met: ratio >= 0.9,
    details: { service, contract, bare },
  };
}

/**
 * auth-warm with LOG_LEVEL=warn: no line per request. The request log stays on by default; this row
 * says what it costs, beside the row with it.
 */
async function authWarmWithoutRequestLog(context: BenchContext): Promise<Row> {
  const withLog = await authWarmRun(context, 'sqlite', {});
  const without = await authWarmRun(context, 'sqlite', { LOG_LEVEL: 'warn' });
  const ratio = without.service.median.requestsPerSecond / without.contract.median.requestsPerSecond;
  return {
    scenario: 'auth-warm, request log off (LOG_LEVEL=warn)',
    engine: 'sqlite',
    measured: perSecond(without.service.median.requestsPerSecond),
    baseline: `bare contract route ${perSecond(without.contract.median.requestsPerSecond)}; with the request log (the default) ${perSecond(withLog.service.median.requestsPerSecond)}`,
    ratio: round(ratio),
    details: { without, withLog, logCostRatio: round(withLog.service.median.requestsPerSecond / without.service.median.requestsPerSecond) },
  };
}

/** 1 / (1/R + 1/B): a recovery and the bare contract answer, one after the other, per request. */
const ceilingOf = (recoveries: number, contract: Measured) => 1 / (1 / recoveries + 1 / contract.median.requestsPerSecond);

/** Requests a run may send at most: the pool must be larger, so that no sign-in is sent twice. */
const poolSize = (context: BenchContext, ceiling: number) => Math.ceil(ceiling * context.durationSeconds * 1.3);

export async function authCold(context: BenchContext, engine: Engine): Promise<Row> {
  const recoveries = await once('recoveries', () => recoveriesPerSecond());
  const referenceRun = await reference(context);
  const { service, contract } = await withService(context, engine, {}, async (server, deployment) => {
    const contract = await bareContract(context, server, await warmHeaders(deployment, `127.0.0.1:${server.port}`));
    const size = poolSize(context, ceilingOf(recoveries, contract));
    const service = checked(
      await measure(
        () => plan(server, context, { siwe: { privateKey: deployment.privateKey, domain: `127.0.0.1:${server.port}`, size } }),
        options(context),
      ),
      [200],
      'auth-cold',
    );
    return { service, contract };
  });
  const ceiling = ceilingOf(recoveries, contract);
  const rate = service.median.requestsPerSecond;
  return {
    scenario: 'auth-cold',
    engine,
    measured: perSecond(rate),
    baseline: `ceiling ${perSecond(ceiling)} (R ${perSecond(recoveries)}, B = bare contract route ${perSecond(contract.median.requestsPerSecond)}); Express + viem ${perSecond(referenceRun.median.requestsPerSecond)}`,
    ratio: round(rate / ceiling),
    target: '≥ 0.8 × ceiling and ≥ 15 × reference',
    met: rate >= 0.8 * ceiling && rate >= 15 * referenceRun.median.requestsPerSecond,
    details: {
      service,
      ceiling,
      recoveriesPerSecond: recoveries,
      contract: contract.median,
      reference: referenceRun,
      referenceRatio: round(rate / referenceRun.median.requestsPerSecond),
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
    run: async (c) => [await authWarm(c, 'sqlite'), await authWarmWithoutRequestLog(c)],
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

export { withBaseline, withService };
