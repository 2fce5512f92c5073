import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { currentCheckout, runCli } from './checkout.ts';
import type { Deployment } from './deployment.ts';
import { Files } from './file-api.ts';
import type { MeasuredRun } from './load.ts';
import type { LoadPlan } from './load-plan.ts';
import { type BenchContext, median, round } from './scenario.ts';
import type { RunningServer } from './servers.ts';
import { signInHeaders } from './sign-in.ts';

/**
 * Writers spread over a deployment's tenants and channels, for the scenarios that set one tenant's
 * writers against many tenants' (quota-uploads, hot-rows): more channels or tenants made with the
 * CLI as an operator would, each writer's own file made before the clock starts (so that every
 * upload replaces it and keeps a version, and no two writers share a file's lock), and the plan
 * that uploads to them, each path signed by its tenant's owner.
 */

export const FILE_BYTES = 4096;
/** CLI commands at once while a deployment is set up (each a process of its own, about 0.25 s). */
const CLI_AT_ONCE = 4;

/** A tenant with one owner and the channel a writer uploads into. */
export interface TenantChannel {
  tenantId: string;
  channelId: string;
  privateKey: `0x${string}`;
}

export const cliFor = async (deployment: Deployment) => {
  const checkout = await currentCheckout();
  return <T = { id: string }>(...args: string[]) => runCli<T>(checkout, args, deployment.env);
};

/** `work` over `items`, `limit` at a time; results in the items' order. */
export async function limited<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** The deployment's channel and `count - 1` more of its tenant, made and linked to its owner with the CLI. */
export async function tenantChannels(deployment: Deployment, count: number): Promise<string[]> {
  const cli = await cliFor(deployment);
  const more = await limited(Array.from({ length: count - 1 }), CLI_AT_ONCE, async (_, i) => {
    const channel = await cli('channel', 'create', '--tenant', deployment.tenantId, '--name', `bench-${i + 2}`);
    await cli('channel', 'link', '--channel', channel.id, '--admin', deployment.adminId);
    return channel.id;
  });
  return [deployment.channelId, ...more];
}

/** The deployment's tenant and `count - 1` more, each with an owner admin of its own key and one channel (the CLI, as the deployment's). */
export async function moreTenants(deployment: Deployment, count: number): Promise<TenantChannel[]> {
  const cli = await cliFor(deployment);
  const first = { tenantId: deployment.tenantId, channelId: deployment.channelId, privateKey: deployment.privateKey };
  const others = await limited(Array.from({ length: count - 1 }), CLI_AT_ONCE, async (_, i) => {
    const privateKey = generatePrivateKey();
    const tenant = await cli('tenant', 'create', '--name', `Bench ${i + 2}`);
    const admin = await cli(
      'admin',
      'create',
      '--tenant',
      tenant.id,
      '--wallet',
      privateKeyToAccount(privateKey).address,
      '--name',
      'Bench owner',
    );
    const channel = await cli('channel', 'create', '--tenant', tenant.id, '--name', 'bench');
    await cli('channel', 'link', '--channel', channel.id, '--admin', admin.id);
    return { tenantId: tenant.id, channelId: channel.id, privateKey };
  });
  return [first, ...others];
}

/** Signed headers of each tenant's owner, valid for hours (`nonce` tells the scenarios' sign-ins apart). */
export function ownerHeaders(server: RunningServer, tenants: TenantChannel[], nonce: string): Promise<Record<string, string>[]> {
  return Promise.all(
    tenants.map((tenant, i) =>
      signInHeaders(tenant.privateKey, `127.0.0.1:${server.port}`, `${nonce}${String(i).padStart(6, '0')}`, 6 * 3600_000),
    ),
  );
}

/** Writer i's file `w-<i>.bin` in `channels[i]`, made now through the API with `headers[i]`: the paths the load replaces. */
export async function writerFiles(server: RunningServer, channels: string[], headers: Record<string, string>[]): Promise<string[]> {
  const paths: string[] = [];
  for (const [i, channelId] of channels.entries()) {
    const files = new Files(server, channelId, headers[i]!);
    await files.put('uploads', `w-${i}.bin`, Buffer.alloc(FILE_BYTES, 1));
    paths.push(files.path('uploads', `w-${i}.bin`));
  }
  return paths;
}

/** One connection per path, each uploading 4 KiB that replace its file; `pathHeaders` sign each path as its tenant's owner. */
export const uploadPlan =
  (
    server: RunningServer,
    context: BenchContext,
    paths: string[],
    headers: Record<string, string>,
    pathHeaders?: Record<string, string>[],
  ) =>
  (): LoadPlan => ({
    url: server.baseUrl,
    method: 'PUT',
    paths,
    connections: paths.length,
    durationSeconds: context.durationSeconds,
    headers: { ...headers, 'Content-Type': 'application/octet-stream' },
    ...(pathHeaders ? { pathHeaders } : {}),
    body: 'u'.repeat(FILE_BYTES),
  });

/** "0.98 (0.95–1.02)": the median of the per-round ratios and their range. */
export const spread = (ratios: number[]) =>
  `${round(median(ratios)).toFixed(2)} (${round(Math.min(...ratios)).toFixed(2)}–${round(Math.max(...ratios)).toFixed(2)})`;

/** Round by round, `top`'s run ÷ `bottom`'s: uploads/s and CPU per upload. */
export function pairs(top: MeasuredRun[], bottom: MeasuredRun[]) {
  const rate = top.map((run, i) => run.requestsPerSecond / bottom[i]!.requestsPerSecond);
  const cpu = top.map((run, i) => run.cpuMicrosecondsPerRequest / bottom[i]!.cpuMicrosecondsPerRequest);
  return { rate, cpu };
}
