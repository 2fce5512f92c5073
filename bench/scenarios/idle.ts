import { setTimeout as sleep } from 'node:timers/promises';
import type { Checkout } from '../lib/checkout.ts';
import { currentCheckout } from '../lib/checkout.ts';
import { roundOrder, spreadOf } from '../lib/load.ts';
import { processCpuMs } from '../lib/process-cpu.ts';
import { type BenchContext, type Row, round, type Scenario, spreadText } from '../lib/scenario.ts';
import { withServers } from '../lib/served.ts';
import type { RunningServer } from '../lib/servers.ts';

/**
 * What a server spends doing nothing: its timers, pollers and samplers, paid every second of an
 * idle service's life (and beside every request of a lightly loaded one). The servers start, settle
 * (start-up's compilation and first reads are not idle work), then each is read over `seconds` in
 * turn, in balanced rounds, so that a swing of the host falls on both alike.
 */
const SETTLE_SECONDS = 5;

/** ms of CPU per second of each server's idle time, round by round (balanced: A B, B A, …). */
async function idleRounds(servers: RunningServer[], rounds: number, seconds: number): Promise<number[][]> {
  const perSecond = servers.map((): number[] => []);
  for (let round = 0; round < rounds; round++)
    for (const i of roundOrder(servers.length, round, true)) {
      const before = await processCpuMs(servers[i]!.pid);
      const started = performance.now();
      await sleep(seconds * 1000);
      perSecond[i]!.push(((await processCpuMs(servers[i]!.pid)) - before) / ((performance.now() - started) / 1000));
    }
  return perSecond;
}

const shape = (context: BenchContext) => ({
  rounds: context.smoke ? 1 : Math.max(context.runs, 5),
  seconds: context.smoke ? 1 : Math.max(context.durationSeconds, 10),
});

const msPerSecond = (values: number[]) => {
  const { median, min, max } = spreadOf(values);
  return `${round(median, 1)} ms CPU/s (${round(min, 1)}–${round(max, 1)})`;
};

/** The service on its defaults (SQLite, nothing configured), idle, against a bare Fastify server idle. */
async function idleCpu(context: BenchContext): Promise<Row[]> {
  const { rounds, seconds } = shape(context);
  const [service, bare] = await withServers(context, async (servers) => {
    const { server } = await servers.service('sqlite');
    const bareServer = await servers.baseline('bare-fastify');
    await sleep(SETTLE_SECONDS * 1000);
    return idleRounds([server, bareServer], rounds, seconds);
  });
  return [
    {
      scenario: 'idle-cpu (the service on its defaults, no request)',
      engine: 'sqlite',
      measured: msPerSecond(service!),
      baseline: `bare Fastify, idle: ${msPerSecond(bare!)}; ${rounds} rounds of ${seconds} s`,
      details: { rounds, seconds, service, bare },
    },
  ];
}

/** This checkout's service and `other`'s, both idle, in balanced rounds. */
async function idleCpuAgainst(context: BenchContext, other: Checkout): Promise<Row[]> {
  const { rounds, seconds } = shape(context);
  const current = await currentCheckout();
  const [mine, theirs] = await withServers(context, async (servers) => {
    const { server: mineServer } = await servers.service('sqlite', { name: 'this' });
    const { server: theirServer } = await servers.service('sqlite', { checkout: other, name: 'other' });
    await sleep(SETTLE_SECONDS * 1000);
    return idleRounds([mineServer, theirServer], rounds, seconds);
  });
  const pairs = spreadOf(mine!.map((value, i) => value / theirs![i]!));
  return [
    {
      scenario: `idle-cpu (this ÷ other: ${spreadText(pairs)})`,
      engine: 'sqlite',
      measured: `this (${current.label}): ${msPerSecond(mine!)}`,
      baseline: `other (${other.label}): ${msPerSecond(theirs!)}`,
      ratio: round(pairs.median),
      details: { rounds, seconds, this: { checkout: current, msPerSecond: mine }, other: { checkout: other, msPerSecond: theirs }, pairs },
    },
  ];
}

export const idleScenario: Scenario = {
  name: 'idle-cpu',
  summary: 'the CPU time per second of the service on its defaults with no request, against a bare Fastify server idle',
  run: idleCpu,
  against: idleCpuAgainst,
};
