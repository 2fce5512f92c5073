import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstreamManager } from '@nats-io/jetstream';
import { type NatsConnection, connect as natsConnect } from '@nats-io/transport-node';
import { signedHeaders } from '../lib/file-api.ts';
import { runLoad, unexpectedAnswers } from '../lib/load.ts';
import type { LoadPlan, LoadResult } from '../lib/load-plan.ts';
import { quantile } from '../lib/offsite.ts';
import { processCpuMs } from '../lib/process-cpu.ts';
import { type BenchContext, cpuPerRequest, median, perSecond, type Row, round, type Scenario } from '../lib/scenario.ts';
import { type Served, withServers } from '../lib/served.ts';
import { uploadSmall } from './small-writes.ts';

/** The NATS with JetStream the `events` scenario publishes to (a stream of the run's own, deleted after it). */
const NATS_URL = process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222';
/** The fixed rate of the latency run: one the delivery keeps up with, so that the latency is not a queue's. */
const STEADY_UPLOADS_PER_SECOND = 50;
/** How long the bench waits for a run's events to be delivered before it fails the scenario. */
const DRAIN_TIMEOUT_MS = 300_000;

/** One event as a destination got it: when, and what it says of itself. */
interface Got {
  at: number;
  /** The audit entry's createdAt (ms): the instant the upload's transaction wrote it. */
  createdAt: number;
  filename: string;
}

/**
 * Where the events arrive: a webhook receiver on loopback (answers 204 at once) and a core NATS
 * subscription to the stream's subjects; each keeps an event's first arrival by its place in the chain.
 */
interface Sinks {
  webhook: Map<number, Got>;
  nats: Map<number, Got>;
  webhookUrl: string;
  stream: string;
  prefix: string;
  close(): Promise<void>;
}

function record(into: Map<number, Got>, body: string, at: number): void {
  const event = JSON.parse(body) as { tenantId: string; data: { seq: number; createdAt: number; filename: string | null } };
  // Only the tenant's chain: the service-wide one (NATS carries it too) has seqs of its own.
  if (event.tenantId !== 'service' && !into.has(event.data.seq))
    into.set(event.data.seq, { at, createdAt: event.data.createdAt, filename: event.data.filename ?? '' });
}

async function openSinks(): Promise<Sinks> {
  const run = randomBytes(5).toString('hex');
  const webhook = new Map<number, Got>();
  const nats = new Map<number, Got>();
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      record(webhook, Buffer.concat(chunks).toString('utf8'), Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const prefix = `wabench${run}`;
  const stream = `WA_BENCH_${run}`;
  let nc: NatsConnection;
  try {
    nc = await natsConnect({ servers: new URL(NATS_URL).host });
  } catch (error) {
    server.close();
    throw new Error(`events: no NATS at ${NATS_URL} (BENCH_NATS_URL): ${(error as Error).message}`);
  }
  // Every message as it is published (JetStream stores it too): the arrival a consumer would see.
  nc.subscribe(`${prefix}.>`, { callback: (_err, message) => record(nats, message.string(), Date.now()) });
  await nc.flush();
  return {
    webhook,
    nats,
    webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    stream,
    prefix,
    async close() {
      await (await jetstreamManager(nc)).streams.delete(stream).catch(() => undefined);
      await nc.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The delivering service's tenant chain, read as its owner: its head, and the 'ok' entries after a seq. */
class Chain {
  private constructor(
    private readonly served: Served,
    private readonly headers: Record<string, string>,
  ) {}

  static async of(served: Served): Promise<Chain> {
    return new Chain(served, await signedHeaders(served.deployment, served.server));
  }

  private async get(path: string): Promise<string> {
    const response = await fetch(`${this.served.server.baseUrl}${path}`, { headers: this.headers });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`events: GET ${path}: ${response.status} ${text.slice(0, 200)}`);
    return text;
  }

  async head(): Promise<number> {
    return (JSON.parse(await this.get('/api/audit/head')) as { seq: number }).seq;
  }

  /** The seqs of the entries after `after` (up to `upTo`) that every destination carries: the 'ok' ones. */
  async eventsAfter(after: number, upTo = Number.POSITIVE_INFINITY): Promise<number[]> {
    return (await this.get(`/api/audit/export?after=${after}`))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { seq: number; result: string })
      .filter((entry) => entry.result === 'ok' && entry.seq <= upTo)
      .map((entry) => entry.seq);
  }
}

/** Waits until both sinks hold every seq, polling every 20 ms; answers each sink's events of them. */
async function arrived(sinks: Sinks, seqs: number[], what: string): Promise<{ webhook: Got[]; nats: Got[] }> {
  const started = Date.now();
  const lacking = (got: Map<number, Got>) => seqs.filter((seq) => !got.has(seq)).length;
  while (lacking(sinks.webhook) > 0 || lacking(sinks.nats) > 0) {
    if (Date.now() - started > DRAIN_TIMEOUT_MS)
      throw new Error(`events: ${what}: ${lacking(sinks.webhook)} events never reached the webhook, ${lacking(sinks.nats)} never NATS`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { webhook: seqs.map((seq) => sinks.webhook.get(seq)!), nats: seqs.map((seq) => sinks.nats.get(seq)!) };
}

interface UploadRun extends LoadResult {
  serverCpuMs: number;
  cpuMicrosecondsPerRequest: number;
  /** With destinations: the delivery of the run's events, once the load stopped. */
  delivery?: {
    events: number;
    /** Events not yet at the webhook / at NATS when the load stopped. */
    behindAtEnd: { webhook: number; nats: number };
    /** From the load's start to the last event's arrival: events ÷ that. */
    webhookPerSecond: number;
    natsPerSecond: number;
    /** From the load's end to the last arrival. */
    drainMs: number;
    /** CPU per upload with the delivery that followed the run. */
    cpuMicrosecondsPerRequest: number;
    /** From the entry's writing (its createdAt) to its arrival, ms: p50 and p99. */
    webhookLatencyMs: { p50: number; p99: number };
    natsLatencyMs: { p50: number; p99: number };
  };
}

interface Side {
  name: string;
  served: Served;
  plan: () => LoadPlan;
  /** The delivering side's sinks and chain. */
  events?: { sinks: Sinks; chain: Chain };
  runs: UploadRun[];
}

const latencies = (got: Got[]) => {
  const values = got.map((g) => g.at - g.createdAt);
  return { p50: quantile(values, 0.5), p99: quantile(values, 0.99) };
};

/** One run of upload-small on a side, its server's CPU read around it; with destinations, then the wait for every event it caused. */
async function uploadRun(side: Side): Promise<UploadRun> {
  const { server } = side.served;
  const headBefore = await side.events?.chain.head();
  const cpuBefore = await processCpuMs(server.pid);
  const started = Date.now();
  const result = await runLoad(side.plan());
  const ended = Date.now();
  const cpuAfterLoad = await processCpuMs(server.pid);
  const serverCpuMs = cpuAfterLoad - cpuBefore;
  const run: UploadRun = { ...result, serverCpuMs, cpuMicrosecondsPerRequest: (serverCpuMs * 1000) / Math.max(1, result.requests) };
  const wrong = unexpectedAnswers(result, uploadSmall.expected);
  if (wrong > 0) throw new Error(`events (${side.name}): ${wrong} answers were not 200: ${JSON.stringify(result.statusCounts)}`);
  if (side.events && headBefore !== undefined) {
    const { sinks, chain } = side.events;
    // The run's events: the entries its uploads wrote (those the load generator cut off at its end included).
    const seqs = await chain.eventsAfter(headBefore);
    const behindAtEnd = {
      webhook: seqs.filter((seq) => !sinks.webhook.has(seq)).length,
      nats: seqs.filter((seq) => !sinks.nats.has(seq)).length,
    };
    const got = await arrived(sinks, seqs, `run of ${side.name}`);
    const deliveryCpuMs = (await processCpuMs(server.pid)) - cpuAfterLoad;
    const last = (list: Got[]) => Math.max(...list.map((g) => g.at));
    run.delivery = {
      events: seqs.length,
      behindAtEnd,
      webhookPerSecond: seqs.length / ((last(got.webhook) - started) / 1000),
      natsPerSecond: seqs.length / ((last(got.nats) - started) / 1000),
      drainMs: Math.max(0, Math.max(last(got.webhook), last(got.nats)) - ended),
      cpuMicrosecondsPerRequest: ((serverCpuMs + deliveryCpuMs) * 1000) / Math.max(1, result.requests),
      webhookLatencyMs: latencies(got.webhook),
      natsLatencyMs: latencies(got.nats),
    };
  }
  return run;
}

/**
 * Uploads at a steady rate, each a new file, from this process: the time from each upload's
 * answer to its event's arrival at the webhook and at NATS.
 */
async function latencyRun(side: Side, context: BenchContext): Promise<{ webhook: number[]; nats: number[]; uploads: number }> {
  const { sinks, chain } = side.events!;
  const { server, deployment } = side.served;
  const headers = await signedHeaders(deployment, server);
  const count = STEADY_UPLOADS_PER_SECOND * context.durationSeconds;
  const tag = randomBytes(3).toString('hex');
  const answered = new Map<string, number>();
  const headBefore = await chain.head();
  const started = Date.now();
  await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + (i * 1000) / STEADY_UPLOADS_PER_SECOND - Date.now())));
      const filename = `l-${tag}-${i}.bin`;
      const response = await fetch(`${server.baseUrl}/api/channels/${deployment.channelId}/folders/latency/files/${filename}`, {
        method: 'PUT',
        headers: { ...headers, 'Content-Type': 'application/octet-stream' },
        body: randomBytes(4096),
      });
      await response.arrayBuffer();
      if (response.status !== 201) throw new Error(`events: latency upload ${filename}: ${response.status}`);
      answered.set(filename, Date.now());
    }),
  );
  const got = await arrived(sinks, await chain.eventsAfter(headBefore), 'the latency run');
  const since = (list: Got[]) => list.filter((g) => answered.has(g.filename)).map((g) => g.at - answered.get(g.filename)!);
  return { webhook: since(got.webhook), nats: since(got.nats), uploads: count };
}

/**
 * upload-small on two services at once, one with no destination and one delivering every event to
 * a webhook receiver on loopback and to NATS JetStream (a stream of its own), their runs
 * interleaved A B B A A B …; after each run of the delivering one, the wait until every event it
 * caused has arrived at both. Then uploads at a steady 50/s on the delivering one, each timed from
 * its answer to its event's arrival. Three rows: the cost on the upload path, the delivery's pace
 * under that load, the latency at the steady rate.
 */
export async function eventsOut(context: BenchContext): Promise<Row[]> {
  const sinks = await openSinks();
  try {
    return await withServers(context, async (servers) => {
      const plain = await servers.service('sqlite', { name: 'no-destination' });
      const evented = await servers.service('sqlite', {
        name: 'events',
        env: {
          OUTBOUND_ALLOW: '127.0.0.0/8',
          EVENTS_NATS_URL: NATS_URL,
          EVENTS_NATS_STREAM: sinks.stream,
          EVENTS_PREFIX: sinks.prefix,
        },
      });
      const hook = await fetch(`${evented.server.baseUrl}/api/webhooks`, {
        method: 'POST',
        headers: { ...(await signedHeaders(evented.deployment, evented.server)), 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: sinks.webhookUrl }),
      });
      if (hook.status !== 201) throw new Error(`events: POST /api/webhooks: ${hook.status} ${await hook.text()}`);
      const chain = await Chain.of(evented);
      // The webhook streams from its creation on (NATS from the service's start, a little before).
      const from = await chain.head();
      const sides: Side[] = [
        { name: 'no destination', served: plain, plan: await uploadSmall.prepare(plain, context), runs: [] },
        { name: 'webhook + NATS', served: evented, plan: await uploadSmall.prepare(evented, context), events: { sinks, chain }, runs: [] },
      ];
      const [without, withEvents] = sides as [Side, Side];
      if (!context.smoke) for (const side of sides) await runLoad({ ...side.plan(), durationSeconds: context.warmupSeconds });
      // The prepared files' uploads (and the warm-up's) are events too: both destinations have them before anything is measured.
      await arrived(sinks, await chain.eventsAfter(from), 'before the runs');
      // A B B A A B …: neither side always runs first, after the other's load.
      for (let r = 0; r < context.runs; r++)
        for (const side of r % 2 === 0 ? sides : [...sides].reverse()) side.runs.push(await uploadRun(side));
      const steady = await latencyRun(withEvents, context);

      const middle = (runs: UploadRun[]) =>
        [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(runs.length / 2)]!;
      const plainMedian = middle(without.runs);
      const eventsMedian = middle(withEvents.runs);
      const plainCpu = median(without.runs.map((m) => m.cpuMicrosecondsPerRequest));
      const eventsCpu = median(withEvents.runs.map((m) => m.cpuMicrosecondsPerRequest));
      const eventsCpuAll = median(withEvents.runs.map((m) => m.delivery!.cpuMicrosecondsPerRequest));
      const deliveries = withEvents.runs.map((m) => m.delivery!);
      const figures = (m: UploadRun, cpu: number) =>
        `${perSecond(m.requestsPerSecond, uploadSmall.unit)}, p99 ${m.latencyMs.p99} ms, ${cpuPerRequest(cpu)}`;
      const ms = (value: number) => `${Math.round(value)} ms`;
      const med = (pick: (d: NonNullable<UploadRun['delivery']>) => number) => median(deliveries.map(pick));
      return [
        {
          scenario: `events (${uploadSmall.title.replace(/^upload-small \((.*)\)$/, 'upload-small: $1')}, a webhook and NATS)`,
          engine: 'sqlite',
          measured: `with a webhook and NATS: ${figures(eventsMedian, eventsCpu)}; ${Math.round(eventsCpuAll).toLocaleString('en-US')} µs CPU/upload with the delivery that followed the run`,
          baseline: `no destination: ${figures(plainMedian, plainCpu)}`,
          ratio: round(eventsMedian.requestsPerSecond / plainMedian.requestsPerSecond),
          cpuRatio: round(eventsCpuAll / plainCpu),
          details: {
            interleaved: 'no destination, with, with, no destination, …',
            settings: {
              ...context.serviceEnv,
              note: 'EVENTS_* at their defaults unless --env says otherwise; one channel, so one pair per destination',
            },
            noDestination: { median: plainMedian, cpuMicrosecondsPerRequest: plainCpu, runs: without.runs },
            withDestinations: {
              median: eventsMedian,
              cpuMicrosecondsPerRequest: eventsCpu,
              cpuMicrosecondsPerRequestWithDelivery: eventsCpuAll,
              runs: withEvents.runs,
            },
          },
        },
        {
          scenario: 'events delivery (during upload-small, one channel: one event in flight per destination)',
          engine: 'sqlite',
          measured:
            `webhook ${perSecond(
              med((d) => d.webhookPerSecond),
              'events/s',
            )}, NATS ${perSecond(
              med((d) => d.natsPerSecond),
              'events/s',
            )} ` +
            `(a run's events ÷ the time from its start to the last one's arrival); behind when the load stopped: ` +
            `${Math.round(med((d) => d.behindAtEnd.webhook))} at the webhook, ${Math.round(med((d) => d.behindAtEnd.nats))} at NATS, all there ${ms(med((d) => d.drainMs))} later; ` +
            `entry written → arrival p50 / p99: webhook ${ms(med((d) => d.webhookLatencyMs.p50))} / ${ms(med((d) => d.webhookLatencyMs.p99))}, ` +
            `NATS ${ms(med((d) => d.natsLatencyMs.p50))} / ${ms(med((d) => d.natsLatencyMs.p99))}`,
          details: { deliveries },
        },
        {
          scenario: `events latency (${STEADY_UPLOADS_PER_SECOND} uploads/s for ${context.durationSeconds} s, EVENTS_POLL_INTERVAL ${context.serviceEnv.EVENTS_POLL_INTERVAL ?? 500} ms)`,
          engine: 'sqlite',
          measured:
            `upload answered → webhook p50 ${ms(quantile(steady.webhook, 0.5))}, p99 ${ms(quantile(steady.webhook, 0.99))}; ` +
            `→ NATS p50 ${ms(quantile(steady.nats, 0.5))}, p99 ${ms(quantile(steady.nats, 0.99))} (${steady.uploads} uploads)`,
          details: {
            webhookMs: {
              p50: quantile(steady.webhook, 0.5),
              p90: quantile(steady.webhook, 0.9),
              p99: quantile(steady.webhook, 0.99),
              max: Math.max(...steady.webhook),
            },
            natsMs: {
              p50: quantile(steady.nats, 0.5),
              p90: quantile(steady.nats, 0.9),
              p99: quantile(steady.nats, 0.99),
              max: Math.max(...steady.nats),
            },
            uploads: steady.uploads,
          },
        },
      ];
    });
  } finally {
    await sinks.close();
  }
}

export const eventsScenarios: Scenario[] = [
  {
    name: 'events',
    summary:
      'upload-small with and without a webhook and NATS as destinations, interleaved: uploads/s and CPU per upload (delivery included), events/s delivered, and latency from an upload’s answer to its event’s arrival',
    run: async (c) => eventsOut(c),
  },
];
