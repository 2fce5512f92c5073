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
let poolSpent = false;

const instance = autocannon({
  url: plan.url,
  method: plan.method,
  connections: plan.connections,
  duration: plan.durationSeconds,
  ...(plan.overallRate ? { overallRate: plan.overallRate } : {}),

  headers: plan.headers ?? {},
  ...(plan.body !== undefined ? { body: plan.body } : {}),
  requests: [
    {
      setupRequest(request) {
        const index = sent++;
        request.path = plan.freshPaths ? plan.freshPaths.replace('{n}', `${runName}-${index}`) : plan.paths[index % plan.paths.length]!;
        if (plan.pathHeaders) request.headers = { ...plan.headers, ...plan.pathHeaders[index % plan.paths.length]! };
        if (pool) {
          // Sized for more than the run can send; were it spent, reused sign-ins would be cache hits.
          if (index >= pool.length && !plan.siwe!.reusable) poolSpent = true;
          request.headers = { ...request.headers, ...pool[index % pool.length]! };
        }
        return request;
      },
    },
  ],
});

const result = await instance;
if (poolSpent) {
  process.stderr.write(`the pre-signed pool (${pool!.length}) was spent before the run ended; a larger pool is needed\n`);
  process.exit(1);
}
const statusCounts: Record<string, number> = {};
for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCounts[code] = (stats as { count: number }).count;
const report: LoadResult = {
  requests: result.requests.total,
  durationSeconds: result.duration,
  requestsPerSecond: result.requests.total / result.duration,
  latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
  statusCounts,
  errors: result.errors,
  timeouts: result.timeouts,
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
      nonce: `bench${process.pid}n${i}`.padEnd(16, '0'),
      issuedAt,
      expirationTime,
    });
    headers.push({ 'X-WAL': wallet.address, 'X-SIG': signer.sign(message), 'X-MES': `base64:${Buffer.from(message).toString('base64')}` });
  }
  return headers;
}
