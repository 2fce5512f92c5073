import type { Engine } from '../lib/deployment.ts';
import { signedHeaders } from '../lib/file-api.ts';
import { checked, type Measured, measureInterleaved } from '../lib/load.ts';
import type { LoadPlan } from '../lib/load-plan.ts';
import { sampleWaits, type WaitCounts, waitsText } from '../lib/pg-waits.ts';
import { type BenchContext, cpuPerRequest, median, perSecond, type Row, round, type Scenario } from '../lib/scenario.ts';
import { type Served, withServers } from '../lib/served.ts';
import { moreTenants, ownerHeaders, pairs, spread, tenantChannels, uploadPlan, writerFiles } from '../lib/tenant-writers.ts';

/**
 * The rows every write of a tenant or a channel updates (issue 39, "Hot rows"): the tenant's audit
 * chain head, the channel's clock and its folder's count. Three services at once on fresh
 * deployments, each under as many writers (load connections) uploading 4 KiB bodies, each writer
 * to a file of its own made beforehand (so no two share a file's lock, and each upload replaces
 * its file and keeps a version):
 *   A: one tenant, one channel, one folder: every write takes the same head, clock and count;
 *   B: one tenant, a channel per writer: the same head, clocks of their own;
 *   C: a tenant per writer, one channel each: nothing shared.
 * Runs interleaved A B C, C B A, … (balanced), A/C and B/C per round, on SQLite and PostgreSQL; on
 * PostgreSQL, what each side's backends wait on, sampled from pg_stat_activity during the runs.
 */

/** 2 writers in a smoke run, which only proves the scenario works on both engines (set-up is most of its time). */
const writersOf = (context: BenchContext) => (context.smoke ? 2 : 32);

interface Side {
  key: 'A' | 'B' | 'C';
  label: string;
  served: Served;
  plan: () => LoadPlan;
}

async function oneChannel(served: Served, context: BenchContext): Promise<Omit<Side, 'key' | 'label'>> {
  const { server, deployment } = served;
  const headers = await signedHeaders(deployment, server);
  const writers = Array.from({ length: writersOf(context) });
  const paths = await writerFiles(
    server,
    writers.map(() => deployment.channelId),
    writers.map(() => headers),
  );
  return { served, plan: uploadPlan(server, context, paths, headers) };
}

async function channelEach(served: Served, context: BenchContext): Promise<Omit<Side, 'key' | 'label'>> {
  const { server, deployment } = served;
  const channels = await tenantChannels(deployment, writersOf(context));
  const headers = await signedHeaders(deployment, server);
  const paths = await writerFiles(
    server,
    channels,
    channels.map(() => headers),
  );
  return { served, plan: uploadPlan(server, context, paths, headers) };
}

async function tenantEach(served: Served, context: BenchContext): Promise<Omit<Side, 'key' | 'label'>> {
  const { server, deployment } = served;
  const tenants = await moreTenants(deployment, writersOf(context));
  const owners = await ownerHeaders(server, tenants, 'benchhotrow');
  const paths = await writerFiles(
    server,
    tenants.map((t) => t.channelId),
    owners,
  );
  return { served, plan: uploadPlan(server, context, paths, {}, owners) };
}

const figures = (measured: Measured) =>
  `${perSecond(measured.median.requestsPerSecond, 'uploads/s')}, p99 ${measured.median.latencyMs.p99} ms, ${cpuPerRequest(measured.cpuMicrosecondsPerRequest)}`;

const databaseOf = (served: Served) => {
  const url = served.deployment.env.DATABASE_URL;
  return url === undefined ? undefined : new URL(url).pathname.slice(1);
};

async function hotRows(context: BenchContext, engine: Engine): Promise<Row[]> {
  const writers = writersOf(context);
  return withServers(context, async (servers) => {
    const started = Date.now();
    const sides: Side[] = [
      { key: 'A', label: 'one tenant, one channel', ...(await oneChannel(await servers.service(engine, { name: 'A' }), context)) },
      {
        key: 'B',
        label: `one tenant, ${writers} channels`,
        ...(await channelEach(await servers.service(engine, { name: 'B' }), context)),
      },
      {
        key: 'C',
        label: `${writers} tenants, one channel each`,
        ...(await tenantEach(await servers.service(engine, { name: 'C' }), context)),
      },
    ];
    context.log(`  hot-rows [${engine}]: 3 services set up in ${Math.round((Date.now() - started) / 1000)} s; runs A B C, C B A, …`);
    const sampler = engine === 'postgres' ? await sampleWaits() : undefined;
    let waits: Map<string, WaitCounts> | undefined;
    let measured: Measured[];
    try {
      // A smoke run only proves the scenario works: no warm-up.
      measured = await measureInterleaved(
        sides.map((side) => ({ pid: side.served.server.pid, plan: side.plan })),
        { runs: context.runs, warmupSeconds: context.smoke ? 0 : context.warmupSeconds, balanced: true },
      );
    } finally {
      waits = await sampler?.stop();
    }
    const [a, b, c] = sides.map((side, i) => checked(measured[i]!, [200], `hot-rows ${side.key} (${side.label}) on ${engine}`)) as [
      Measured,
      Measured,
      Measured,
    ];
    const waitsOf = (side: Side) => waits?.get(databaseOf(side.served) ?? '');
    for (const [i, side] of sides.entries())
      context.log(
        `    ${side.key} ${side.label}: ${measured[i]!.runs.map((r) => `${Math.round(r.requestsPerSecond)}/s ${Math.round(r.cpuMicrosecondsPerRequest)} µs`).join(', ')}${waits ? `; PostgreSQL backends per sample: ${waitsText(waitsOf(side), 6)}` : ''}`,
      );
    const title = `hot-rows (4 KiB, ${writers} writers)`;
    const sideDetails = (side: Side, m: Measured) => ({
      side: side.key,
      setup: side.label,
      ...m,
      ...(waits ? { waits: waitsOf(side) } : {}),
    });
    const common = {
      interleaved: 'A B C, C B A, A B C, …: one run of each per round; ratios are of the same round’s runs',
      note: 'CPU is the service process’s only; on PostgreSQL the database server’s own is not in it',
    };
    const row = (top: Side, topMeasured: Measured): Row => {
      const over = pairs(topMeasured.runs, c.runs);
      return {
        scenario: `${title}: ${top.label} (${top.key}) ÷ ${writers} tenants (C)`,
        engine,
        measured: `${top.key} ${top.label}: ${figures(topMeasured)}; per round ${top.key}/C uploads/s ${spread(over.rate)}, CPU ${spread(over.cpu)}`,
        baseline: `C ${writers} tenants: ${figures(c)}`,
        ratio: round(median(over.rate)),
        cpuRatio: round(median(over.cpu)),
        details: {
          ...common,
          perRound: { uploadsPerSecond: over.rate.map((r) => round(r, 3)), cpuPerUpload: over.cpu.map((r) => round(r, 3)) },
          measured: sideDetails(top, topMeasured),
          baseline: sideDetails(sides[2]!, c),
        },
      };
    };
    return [row(sides[0]!, a), row(sides[1]!, b)];
  });
}

export const hotRowsScenario: Scenario = {
  name: 'hot-rows',
  summary:
    '4 KiB uploads from 32 writers, each to a file of its own, in one tenant and one channel (A), in one tenant over 32 channels (B) and in 32 tenants (C), interleaved, on SQLite and PostgreSQL: uploads/s, CPU per upload, A/C and B/C per round, and on PostgreSQL what the backends wait on',
  run: async (c) => [...(await hotRows(c, 'sqlite')), ...(await hotRows(c, 'postgres'))],
};
