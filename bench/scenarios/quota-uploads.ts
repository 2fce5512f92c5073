import type { Engine } from '../lib/deployment.ts';
import { signedHeaders } from '../lib/file-api.ts';
import { checked, type Measured, measureInterleaved } from '../lib/load.ts';
import type { LoadPlan } from '../lib/load-plan.ts';
import { type BenchContext, cpuPerRequest, median, perSecond, type Row, round, type Scenario } from '../lib/scenario.ts';
import { type Served, withServers } from '../lib/served.ts';
import type { RunningServer } from '../lib/servers.ts';
import {
  cliFor,
  limited,
  moreTenants,
  ownerHeaders,
  pairs,
  spread,
  tenantChannels,
  uploadPlan,
  writerFiles,
} from '../lib/tenant-writers.ts';

/**
 * What quotas (issue 38, docs/quotas.md) cost on the upload path. A tenant's quota is checked in
 * each upload's commit, after the write appended its audit entry (holding the tenant's chain head,
 * which every write of the tenant takes anyway), by summing the tenant's channels' usage; the
 * issue asks that this not serialise a tenant's writes more than they already are. Three services
 * at once on fresh deployments, each under 32 clients uploading 4 KiB bodies that replace files made
 * beforehand (every answer 200, a version kept each time):
 *   A: one tenant, the 32 writers spread over 4 of its channels, no quota;
 *   B: the same with a tenant quota far above what the run writes (every commit sums the tenant's
 *      usage under its head) and a quota on each channel;
 *   C: 32 tenants of one channel each, quotas set as in B: nothing shared between the writers.
 * Their runs interleaved A B C, C B A, …; B/A and A/C per round, on SQLite and on PostgreSQL.
 */

const CHANNELS = 4;
/** The tenant's quota, 1 TiB: a full-size run writes a few hundred MiB of records, so nothing is refused. */
const TENANT_MAX_BYTES = 2 ** 40;
/** Each channel's, 256 MiB × 1,024: within the tenant's, as a channel's quota must be. */
const CHANNEL_MAX_BYTES = 2 ** 38;

/** Writers (load connections), and in C tenants: 8 in a smoke run, which only proves the scenario works. */
const writersOf = (context: BenchContext) => (context.smoke ? 8 : 32);

interface Side {
  key: 'A' | 'B' | 'C';
  label: string;
  served: Served;
  plan: () => LoadPlan;
  /** The headers to read each tenant's usage with (GET /api/usage). */
  owners: Record<string, string>[];
}

async function setChannelQuota(server: RunningServer, channelId: string, headers: Record<string, string>): Promise<void> {
  const response = await fetch(`${server.baseUrl}/api/channels/${channelId}/quota`, {
    method: 'PUT',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ maxBytes: CHANNEL_MAX_BYTES, maxFiles: null }),
  });
  if (response.status !== 200) throw new Error(`quota-uploads: PUT quota of ${channelId}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
}

interface TenantUsage {
  tenantId: string;
  usage: { files: number; bytes: number };
  quota: { maxBytes: number | null; maxFiles: number | null };
  channels: { channelId: string; quota: { maxBytes: number | null; maxFiles: number | null } }[];
}

async function usageOf(server: RunningServer, headers: Record<string, string>): Promise<TenantUsage> {
  const response = await fetch(`${server.baseUrl}/api/usage`, { headers });
  if (response.status !== 200) throw new Error(`quota-uploads: GET /api/usage: ${response.status} ${await response.text()}`);
  return (await response.json()) as TenantUsage;
}

/**
 * The quotas a side is meant to have, read back from the service before anything is measured (once
 * each channel has a file: GET /api/usage lists only the channels written to).
 */
async function expectQuotas(server: RunningServer, headers: Record<string, string>, quotas: boolean, channels: number): Promise<void> {
  const usage = await usageOf(server, headers);
  const tenantOk = usage.quota.maxBytes === (quotas ? TENANT_MAX_BYTES : null);
  const channelsOk =
    usage.channels.length === channels && usage.channels.every((c) => c.quota.maxBytes === (quotas ? CHANNEL_MAX_BYTES : null));
  if (!tenantOk || !channelsOk)
    throw new Error(`quota-uploads: tenant ${usage.tenantId} has not the quotas set up: ${JSON.stringify(usage)}`);
}

/**
 * A and B: the deployment's tenant with 3 more channels (made and linked with the CLI, as the
 * deployment's own), writer i's file in channel i mod 4; with `quotas`, the tenant's set with the CLI
 * and each channel's with PUT …/quota as its owner.
 */
async function oneTenant(served: Served, context: BenchContext, quotas: boolean): Promise<Omit<Side, 'key' | 'label'>> {
  const { server, deployment } = served;
  const cli = await cliFor(deployment);
  const channels = await tenantChannels(deployment, CHANNELS);
  const headers = await signedHeaders(deployment, server);
  if (quotas) {
    await cli('tenant', 'set-quota', '--tenant', deployment.tenantId, '--max-bytes', String(TENANT_MAX_BYTES));
    for (const channelId of channels) await setChannelQuota(server, channelId, headers);
  }
  const writers = Array.from({ length: writersOf(context) }, (_, i) => i);
  const paths = await writerFiles(
    server,
    writers.map((i) => channels[i % CHANNELS]!),
    writers.map(() => headers),
  );
  await expectQuotas(server, headers, quotas, CHANNELS);
  return { served, plan: uploadPlan(server, context, paths, headers), owners: [headers] };
}

/**
 * C: the deployment's tenant and as many more as there are writers less one, each with an owner
 * admin of its own key and one channel (the CLI, as the deployment's), its quota set with the CLI and
 * its channel's with PUT …/quota; writer i uploads into tenant i's channel, signed by its owner.
 */
async function manyTenants(served: Served, context: BenchContext): Promise<Omit<Side, 'key' | 'label'>> {
  const { server, deployment } = served;
  const cli = await cliFor(deployment);
  const tenants = await moreTenants(deployment, writersOf(context));
  await limited(tenants, 4, (t) => cli('tenant', 'set-quota', '--tenant', t.tenantId, '--max-bytes', String(TENANT_MAX_BYTES)));
  const owners = await ownerHeaders(server, tenants, 'benchquota');
  for (const [i, tenant] of tenants.entries()) await setChannelQuota(server, tenant.channelId, owners[i]!);
  const paths = await writerFiles(
    server,
    tenants.map((t) => t.channelId),
    owners,
  );
  for (const headers of owners) await expectQuotas(server, headers, true, 1);
  return { served, plan: uploadPlan(server, context, paths, {}, owners), owners };
}

const figures = (measured: Measured) =>
  `${perSecond(measured.median.requestsPerSecond, 'uploads/s')}, p99 ${measured.median.latencyMs.p99} ms, ${cpuPerRequest(measured.cpuMicrosecondsPerRequest)}`;

/** The three sides on one engine: two rows, quotas ÷ none (B/A) and one tenant ÷ 32 tenants (A/C). */
async function quotaUploads(context: BenchContext, engine: Engine): Promise<Row[]> {
  const writers = writersOf(context);
  return withServers(context, async (servers) => {
    const started = Date.now();
    const sides: Side[] = [
      {
        key: 'A',
        label: `one tenant, ${CHANNELS} channels, no quota`,
        ...(await oneTenant(await servers.service(engine, { name: 'A' }), context, false)),
      },
      {
        key: 'B',
        label: `one tenant, ${CHANNELS} channels, tenant and channel quotas`,
        ...(await oneTenant(await servers.service(engine, { name: 'B' }), context, true)),
      },
      {
        key: 'C',
        label: `${writers} tenants of one channel, quotas`,
        ...(await manyTenants(await servers.service(engine, { name: 'C' }), context)),
      },
    ];
    context.log(`  quota-uploads [${engine}]: 3 services set up in ${Math.round((Date.now() - started) / 1000)} s; runs A B C, C B A, …`);
    // A smoke run only proves the scenario works: no warm-up.
    const measured = await measureInterleaved(
      sides.map((side) => ({ pid: side.served.server.pid, plan: side.plan })),
      { runs: context.runs, warmupSeconds: context.smoke ? 0 : context.warmupSeconds, balanced: true },
    );
    const [a, b, c] = sides.map((side, i) => checked(measured[i]!, [200], `quota-uploads ${side.key} (${side.label}) on ${engine}`)) as [
      Measured,
      Measured,
      Measured,
    ];
    // What the runs left in each tenant: far under its quota (else uploads would have been refused, and the run failed).
    const usage = await Promise.all(
      sides.map(async (side) => {
        const tenants = await Promise.all(side.owners.map((headers) => usageOf(side.served.server, headers)));
        return { side: side.key, tenants: tenants.length, largestBytes: Math.max(...tenants.map((t) => t.usage.bytes)) };
      }),
    );
    const bOverA = pairs(b.runs, a.runs);
    const aOverC = pairs(a.runs, c.runs);
    const bOverC = pairs(b.runs, c.runs);
    for (const [i, side] of sides.entries())
      context.log(
        `    ${side.key} ${side.label}: ${measured[i]!.runs.map((r) => `${Math.round(r.requestsPerSecond)}/s ${Math.round(r.cpuMicrosecondsPerRequest)} µs`).join(', ')}`,
      );
    const title = `quota-uploads (4 KiB, ${writers} clients)`;
    const sideDetails = (side: Side, m: Measured) => ({ side: side.key, setup: side.label, ...m });
    const pairDetails = {
      interleaved: 'A B C, C B A, A B C, …: one run of each per round; ratios are of the same round’s runs',
      quotas: { tenantMaxBytes: TENANT_MAX_BYTES, channelMaxBytes: CHANNEL_MAX_BYTES, maxFiles: null },
      perRound: {
        uploadsPerSecondBOverA: bOverA.rate.map((r) => round(r, 3)),
        cpuPerUploadBOverA: bOverA.cpu.map((r) => round(r, 3)),
        uploadsPerSecondAOverC: aOverC.rate.map((r) => round(r, 3)),
        cpuPerUploadAOverC: aOverC.cpu.map((r) => round(r, 3)),
        uploadsPerSecondBOverC: bOverC.rate.map((r) => round(r, 3)),
        cpuPerUploadBOverC: bOverC.cpu.map((r) => round(r, 3)),
      },
      usageAfter: usage,
      note: 'CPU is the service process’s only; on PostgreSQL the database server’s own is not in it',
    };
    return [
      {
        scenario: `${title}: one tenant's ${CHANNELS} channels, quotas (B) ÷ none (A)`,
        engine,
        measured: `B quotas: ${figures(b)}; per round B/A uploads/s ${spread(bOverA.rate)}, CPU ${spread(bOverA.cpu)}`,
        baseline: `A no quota: ${figures(a)}`,
        ratio: round(median(bOverA.rate)),
        cpuRatio: round(median(bOverA.cpu)),
        details: { ...pairDetails, measured: sideDetails(sides[1]!, b), baseline: sideDetails(sides[0]!, a) },
      },
      {
        scenario: `${title}: one tenant (A, no quota) ÷ ${writers} tenants (C, quotas)`,
        engine,
        measured: `A one tenant: ${figures(a)}; per round A/C uploads/s ${spread(aOverC.rate)}, CPU ${spread(aOverC.cpu)}; B/C uploads/s ${spread(bOverC.rate)}`,
        baseline: `C ${writers} tenants: ${figures(c)}`,
        ratio: round(median(aOverC.rate)),
        cpuRatio: round(median(aOverC.cpu)),
        details: { ...pairDetails, measured: sideDetails(sides[0]!, a), baseline: sideDetails(sides[2]!, c) },
      },
    ];
  });
}

export const quotaUploadsScenario: Scenario = {
  name: 'quota-uploads',
  summary:
    "4 KiB uploads from 32 clients into one tenant's 4 channels without quotas (A) and with tenant and channel quotas (B), and into 32 tenants with quotas (C), interleaved, on SQLite and PostgreSQL: uploads/s, CPU per upload, B/A and A/C per round",
  // A smoke run on SQLite only (as offsite-write's): the engines differ only in DATABASE_URL here.
  run: async (c) => [...(await quotaUploads(c, 'sqlite')), ...(c.smoke ? [] : await quotaUploads(c, 'postgres'))],
};
