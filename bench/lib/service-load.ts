import { type Checkout, currentCheckout } from './checkout.ts';
import type { Engine } from './deployment.ts';
import { checked, type Measured, measure, measureInterleaved } from './load.ts';
import type { LoadPlan } from './load-plan.ts';
import { type BenchContext, cpuPerRequest, perSecond, type Row, round } from './scenario.ts';
import { type Served, withServers } from './served.ts';

/**
 * A load on the service with no baseline server of its own: what to set up on a fresh service, and
 * the plan of each run. Measured alone for its row, or with --against on two checkouts' services,
 * interleaved: the same set-up on each, so that the service is all that differs.
 */
export interface ServiceLoad {
  /** The row's name: 'restore-small (4 KiB, 50 clients)'. */
  title: string;
  /** What is counted per second: 'req/s', 'uploads/s'. */
  unit: string;
  /** The only statuses a run may answer: any other fails the scenario. */
  expected: number[];
  /** Sets the deployment up through the service's API (files, backups); returns the plan of each run. */
  prepare(served: Served, context: BenchContext): Promise<() => LoadPlan>;
}

const options = (context: BenchContext) => ({ runs: context.runs, warmupSeconds: context.warmupSeconds });

/** "412 uploads/s, p99 180 ms, 2,345 µs CPU/request": the median run's rate and p99, the runs' median CPU per request. */
const figures = (load: ServiceLoad, measured: Measured) =>
  `${perSecond(measured.median.requestsPerSecond, load.unit)}, p99 ${measured.median.latencyMs.p99} ms, ${cpuPerRequest(measured.cpuMicrosecondsPerRequest)}`;

/** The load on this checkout's service: its row. */
export function measureLoad(context: BenchContext, engine: Engine, load: ServiceLoad): Promise<Row> {
  return withServers(context, async (servers) => {
    const served = await servers.service(engine);
    const plan = await load.prepare(served, context);
    const measured = checked(await measure({ pid: served.server.pid, plan }, options(context)), load.expected, load.title);
    return { scenario: load.title, engine, measured: figures(load, measured), details: { measured } };
  });
}

/**
 * The load on this checkout's service and on `other`'s, each on a fresh deployment made by its own
 * CLI, their runs interleaved (this, other, this, other, …): one row with both figures, the ratio of
 * requests/s (this ÷ other: above 1, this one is faster) and of CPU per request (above 1, this one
 * spends more).
 */
export async function compareCheckouts(context: BenchContext, engine: Engine, load: ServiceLoad, other: Checkout): Promise<Row> {
  const current = await currentCheckout();
  return withServers(context, async (servers) => {
    const targets = [];
    for (const [checkout, name] of [
      [current, 'this'],
      [other, 'other'],
    ] as const) {
      const served = await servers.service(engine, { checkout, name });
      targets.push({ pid: served.server.pid, plan: await load.prepare(served, context) });
    }
    const [mine, theirs] = await measureInterleaved(targets, options(context));
    checked(mine!, load.expected, `${load.title}, this checkout`);
    checked(theirs!, load.expected, `${load.title}, ${other.root}`);
    return {
      scenario: load.title,
      engine,
      measured: `this (${current.label}): ${figures(load, mine!)}`,
      baseline: `other (${other.label}): ${figures(load, theirs!)}`,
      ratio: round(mine!.median.requestsPerSecond / theirs!.median.requestsPerSecond),
      cpuRatio: round(mine!.cpuMicrosecondsPerRequest / theirs!.cpuMicrosecondsPerRequest),
      details: { this: { checkout: current, measured: mine }, other: { checkout: other, measured: theirs } },
    };
  });
}
