import type { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import autocannon from 'autocannon';
import { createSiweMessage } from 'viem/siwe';
import type { LoadPlan, LoadResult } from './load-plan.ts';
import { PoolSigner } from './pool-signer.ts';

/**
 * The load generator, in a process of its own so that it never shares an event loop with the
 * server it measures. Reads a LoadPlan from the file named on the command line and prints one
 * line of JSON (a LoadResult) when done.
 */
const plan = JSON.parse(await readFile(process.argv[2]!, 'utf8')) as LoadPlan;

const pool = plan.siwe ? await signPool(plan.siwe) : undefined;
let sent = 0;
const runName = `${process.pid}-${Date.now().toString(36)}`;
// A pool that may not be reused caps the run: it ends when the pool is spent, however long it was
// planned, rather than resend a sign-in (a cache hit, not the cold work measured). The run's
// figures then cover the time it ran; the report says so.
const cap = pool && !plan.siwe!.reusable ? pool.length : undefined;
let resent = 0;

const startedAt = performance.now();
const instance = autocannon({
  url: plan.url,
  method: plan.method,
  connections: plan.connections,
  duration: plan.durationSeconds,
  ...(plan.overallRate ? { overallRate: plan.overallRate } : {}),
  ...(cap !== undefined ? { maxOverallRequests: cap } : {}),

  headers: plan.headers ?? {},
  ...(plan.body !== undefined ? { body: plan.body } : {}),
  requests: [
    {
      setupRequest(request) {
        const index = sent++;
        request.path = plan.freshPaths ? plan.freshPaths.replace('{n}', `${runName}-${index}`) : plan.paths[index % plan.paths.length]!;
        if (plan.pathHeaders) request.headers = { ...plan.headers, ...plan.pathHeaders[index % plan.paths.length]! };
        if (pool) {
          if (cap !== undefined && index >= cap) resent++;
          request.headers = { ...request.headers, ...pool[index % pool.length]! };
        }
        return request;
      },
    },
  ],
});

// autocannon notices the end only at its next one-second tick: a run cut short by its pool is
// timed to its last answer instead.
let lastAnswerAt = startedAt;
// The promise is also the run's event emitter (autocannon's types leave that out).
(instance as unknown as EventEmitter).on('response', () => (lastAnswerAt = performance.now()));
const result = await instance;
const poolSpent = cap !== undefined && sent >= cap;
const durationSeconds = poolSpent ? (lastAnswerAt - startedAt) / 1000 : result.duration;
if (resent > 0) {
  process.stderr.write(`${resent} sign-ins of the pre-signed pool (${cap}) were sent twice: the cap did not hold\n`);
  process.exit(1);
}
const statusCounts: Record<string, number> = {};
for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCounts[code] = (stats as { count: number }).count;
const report: LoadResult = {
  requests: result.requests.total,
  durationSeconds,
  requestsPerSecond: result.requests.total / durationSeconds,
  latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
  statusCounts,
  errors: result.errors,
  timeouts: result.timeouts,
  ...(poolSpent ? { poolSpent: { size: cap, plannedSeconds: plan.durationSeconds } } : {}),
};
process.stdout.write(`${JSON.stringify(report)}\n`);

async function signPool(siwe: NonNullable<LoadPlan['siwe']>): Promise<Record<string, string>[]> {
  const wallet = await PoolSigner.create(siwe.privateKey);
  const signer = siwe.bad && siwe.badKey ? await PoolSigner.create(siwe.badKey) : wallet;
  const issuedAt = new Date();
  const expirationTime = new Date(issuedAt.getTime() + 3600_000);
  const headers: Record<string, string>[] = [];
  for (let i = 0; i < siwe.size; i++) {
    const message = createSiweMessage({
      domain: siwe.domain,
      address: wallet.address,
      statement: 'Sign in to wallet-admin benchmarks.',
      uri: `http://${siwe.domain}/`,
      version: '1',
      chainId: 1,
      // Unique per message: padding the end instead would give 1 and 10 the same nonce (and the same message).
      nonce: `bench${process.pid}n${String(i).padStart(7, '0')}`,
      issuedAt,
      expirationTime,
    });
    headers.push({ 'X-WAL': wallet.address, 'X-SIG': signer.sign(message), 'X-MES': `base64:${Buffer.from(message).toString('base64')}` });
  }
  return headers;
}
