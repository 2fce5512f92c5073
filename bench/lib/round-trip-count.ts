import { setTimeout as sleep } from 'node:timers/promises';
import { type Checkout, currentCheckout } from './checkout.ts';
import { RoundTripCounter, type RoundTrips } from './pg-round-trips.ts';
import type { BenchContext, Row } from './scenario.ts';
import { round } from './scenario.ts';
import { withServers } from './served.ts';
import type { ServiceLoad } from './service-load.ts';

/** Requests counted, one after the other: each its own exchange with the database, none waiting on another's lock. */
const REQUESTS = 200;
const SMOKE_REQUESTS = 20;
const POSTGRES = { host: '127.0.0.1', port: 5432 };

/** The counts of one checkout's service under `load`, per request. */
export interface RoundTripsPerRequest {
  checkout: Checkout;
  requests: number;
  roundTrips: number;
  /** BEGIN … COMMIT exchanges per request. */
  transactions: number;
  /** What the service sent while idle for as long as the requests took (timers, pollers): already left out above. */
  idleRoundTrips: number;
  /** Each statement's text and how many times per request it was sent, most sent first. */
  statements: { text: string; perRequest: number }[];
}

/**
 * Counts the round trips to PostgreSQL of one request of `load`: the service of `checkout` on a
 * fresh deployment, its DATABASE_URL pointed at a relay that reads the wire protocol
 * (pg-round-trips.ts); after the load's own set-up, REQUESTS requests of its plan sent one at a
 * time, and what the service sent while idle for as long subtracted.
 */
export async function countRoundTrips(context: BenchContext, load: ServiceLoad, checkout?: Checkout): Promise<RoundTripsPerRequest> {
  const counter = await RoundTripCounter.start(POSTGRES);
  try {
    return await withServers(context, async (servers) => {
      const served = await servers.service('postgres', { checkout, name: 'round-trips', databaseUrl: (url) => counter.urlFor(url) });
      const plan = (await load.prepare(served, context))();
      const requests = context.smoke ? SMOKE_REQUESTS : REQUESTS;
      const send = async (i: number) => {
        const path = plan.paths[i % plan.paths.length]!;
        const response = await fetch(`${plan.url}${path}`, { method: plan.method, headers: plan.headers, body: plan.body });
        await response.arrayBuffer();
        if (!load.expected.includes(response.status)) throw new Error(`${load.title}: ${plan.method} ${path} answered ${response.status}`);
      };
      await send(0); // the first request of a signature fills the caches every later one hits
      counter.take();
      const started = performance.now();
      for (let i = 1; i <= requests; i++) await send(i);
      const took = performance.now() - started;
      const measured = counter.take();
      await sleep(took);
      const idle = counter.take();
      return perRequest(measured, idle, requests, checkout ?? (await currentCheckout()));
    });
  } finally {
    await counter.close();
  }
}

function perRequest(measured: RoundTrips, idle: RoundTrips, requests: number, checkout: Checkout): RoundTripsPerRequest {
  const less = (text: string, n: number) => n - (idle.statements.get(text) ?? 0);
  const statements = [...measured.statements]
    .map(([text, n]) => ({ text, perRequest: round(less(text, n) / requests) }))
    .filter((s) => s.perRequest > 0)
    .sort((a, b) => b.perRequest - a.perRequest || a.text.localeCompare(b.text));
  const sent = (word: string) => less(word, measured.statements.get(word) ?? 0);
  return {
    checkout,
    requests,
    roundTrips: round((measured.roundTrips - idle.roundTrips) / requests),
    transactions: round(sent('begin') / requests),
    idleRoundTrips: idle.roundTrips,
    statements,
  };
}

/**
 * What each statement is for, by what it reads or writes: the first pattern its text matches. A
 * folded statement counts once, under the part it starts with (the commit's first statement ends
 * the journal entry and reads the live record: "journal").
 */
const PARTS: [string, RegExp][] = [
  ['transaction', /^(begin|commit|rollback)$/],
  ['file lock', /pg_advisory/],
  ['audit chain', /audit_heads|audit_events/],
  ['channel clock', /channel_clocks|clock_ticks/],
  ['journal', /pending_writes/],
  ['quotas', /quota_max/],
  ['backup', /backups/],
  ['channel', /from "channels"/],
  ['version', /file_versions/],
  ['live record', /"files"/],
  ['sign-in state', /admins|revoked_messages|admin_permissions/],
];

/** Round trips per request by part (PARTS), most first: "file lock 2, …". */
export function byPart(statements: RoundTripsPerRequest['statements']): string {
  const parts = new Map<string, number>();
  for (const { text, perRequest } of statements) {
    const part = PARTS.find(([, pattern]) => pattern.test(text))?.[0] ?? 'other';
    parts.set(part, (parts.get(part) ?? 0) + perRequest);
  }
  return [...parts]
    .filter(([, n]) => n >= 0.5)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([part, n]) => `${part} ${round(n, 1)}`)
    .join(', ');
}

const describe = (counted: RoundTripsPerRequest) =>
  `${counted.roundTrips} round trips per request (${counted.transactions} transaction${counted.transactions === 1 ? '' : 's'}): ${byPart(counted.statements)}`;

/** The row of a load's round trips on PostgreSQL: this checkout's, or with --against beside the other's. */
export async function roundTripRow(context: BenchContext, load: ServiceLoad, other?: Checkout): Promise<Row> {
  const mine = await countRoundTrips(context, load);
  const theirs = other && (await countRoundTrips(context, load, other));
  context.log(`${load.title}: round trips per request on PostgreSQL, by statement:`);
  for (const { text, perRequest } of mine.statements) context.log(`  ${perRequest} × ${text.slice(0, 160)}`);
  const scenario = `round trips to PostgreSQL: ${load.title.replace(/ \(.*/, '')}`;
  if (!theirs) return { scenario, engine: 'postgres', measured: describe(mine), details: { this: mine } };
  return {
    scenario,
    engine: 'postgres',
    measured: `this (${mine.checkout.label}): ${describe(mine)}`,
    baseline: `other (${theirs.checkout.label}): ${describe(theirs)}`,
    ratio: round(mine.roundTrips / theirs.roundTrips),
    details: { this: mine, other: theirs },
  };
}
