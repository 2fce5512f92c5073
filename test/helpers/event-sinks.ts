import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { connect as amqpConnect, type ChannelModel } from 'amqplib';
import type { Redis } from 'ioredis';
import { exportLine } from '../../src/audit-chain/chain-entry.ts';

/**
 * What the events-out tests (test/events/event-*.test.ts) read back from every destination, and the
 * one check they hold each destination to: every event expected arrived at least once, each copy
 * with the same id and body (the export's entry, byte for byte once canonical), in chain order per
 * (tenant, channel), nothing else.
 */

/** One copy of an event as a destination got it. */
export interface Arrival {
  /** The id as the destination carries it: webhook-id, Nats-Msg-Id, AMQP messageId, the Redis entry's id field. */
  id: string;
  /** The bytes as sent, as text. */
  body: string;
  /** The chain and channel its address names (subject, routing key, stream key); a webhook's, from the body. */
  tenantId: string;
  channelId: string | null;
  /** The type its address names, where it names one (NATS, AMQP, Redis). */
  type?: string;
  /** When it arrived (this process's clock, ms); for NATS, when JetStream stored it. */
  at: number;
}

/** One entry of an export (`GET /api/audit/export`, `audit export --service`): its line as written. */
export interface ChainEntry {
  seq: number;
  hash: string;
  tenantId: string;
  channelId: string | null;
  action: string;
  result: string;
  createdAt: number;
  /** The line, without its newline. */
  line: string;
  data: Record<string, unknown>;
}

export function parseExport(text: string): ChainEntry[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const data = JSON.parse(line) as Record<string, unknown>;
      return {
        seq: data.seq as number,
        hash: data.hash as string,
        tenantId: data.tenantId as string,
        channelId: (data.channelId as string | null) ?? null,
        action: data.action as string,
        result: data.result as string,
        createdAt: data.createdAt as number,
        line,
        data,
      };
    });
}

/** Polls `predicate` every 25 ms until it holds, or fails after `timeoutMs` with what `describe` says. */
export async function until(predicate: () => boolean | Promise<boolean>, timeoutMs: number, describe: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${describe()}`);
    await sleep(25);
  }
}

// ---------------------------------------------------------------------------------------------
// A webhook receiver that may take its time to answer
// ---------------------------------------------------------------------------------------------

export interface EventReceiver {
  url: string;
  /** Every POST received in full, in arrival order, whether or not its answer reached the sender. */
  arrivals: Arrival[];
  /** POSTs received and not yet answered: a kill now falls mid-delivery. */
  readonly inFlight: number;
  /** Those POSTs' events. */
  readonly pending: readonly Arrival[];
  /** How long to wait before answering a POST (ms): 0 by default. */
  delayMs: () => number;
  /** The status to answer: 204 by default. */
  status: (arrival: Arrival) => number;
  close(): Promise<void>;
}

/** A webhook receiver on loopback, at `/hook`: records each POST as it arrives, then answers after `delayMs()`. */
export async function startEventReceiver(): Promise<EventReceiver> {
  const pending = new Set<Arrival>();
  const receiver: EventReceiver = {
    url: '',
    arrivals: [],
    get inFlight() {
      return pending.size;
    },
    get pending() {
      return [...pending];
    },
    delayMs: () => 0,
    status: () => 204,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let arrival: Arrival | undefined;
      try {
        const event = JSON.parse(body) as { id: string; tenantId: string; channelId?: string };
        arrival = {
          id: String(request.headers['webhook-id']),
          body,
          tenantId: event.tenantId,
          channelId: event.channelId ?? null,
          at: Date.now(),
        };
      } catch {
        // not an event: answered 400 below
      }
      if (request.url !== '/hook' || arrival === undefined) {
        response.writeHead(arrival === undefined ? 400 : 404).end();
        return;
      }
      receiver.arrivals.push(arrival);
      const status = receiver.status(arrival);
      const delay = receiver.delayMs();
      pending.add(arrival);
      const answer = () => {
        pending.delete(arrival);
        if (!response.destroyed) response.writeHead(status, { 'content-type': 'text/plain' }).end(status >= 300 ? `says ${status}` : '');
      };
      if (delay > 0) setTimeout(answer, delay);
      else answer();
    });
  });
  // A sender killed mid-request resets its connection: nothing for the receiver to do.
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

// ---------------------------------------------------------------------------------------------
// Reading back from the brokers
// ---------------------------------------------------------------------------------------------

/** `<prefix>.<tenant>.<channel or _>.<type>` (a NATS subject, an AMQP routing key), the prefix one token. */
function dotted(address: string): Pick<Arrival, 'tenantId' | 'channelId' | 'type'> {
  const [, tenantId, channel, ...type] = address.split('.');
  return { tenantId: tenantId!, channelId: channel === '_' ? null : channel!, type: type.join('.') };
}

/** Every message of a JetStream stream, in the stream's order (an ordered consumer); none when it does not exist. */
export async function natsArrivals(nc: NatsConnection, stream: string): Promise<Arrival[]> {
  const jsm = await jetstreamManager(nc);
  let count: number;
  try {
    count = (await jsm.streams.info(stream)).state.messages;
  } catch {
    return [];
  }
  const read: Arrival[] = [];
  if (count === 0) return read;
  const consumer = await jetstream(nc).consumers.get(stream);
  while (read.length < count) {
    const batch = await consumer.fetch({ max_messages: Math.min(count - read.length, 1000), expires: 2000 });
    let got = 0;
    for await (const message of batch) {
      got++;
      read.push({
        id: message.headers?.get('Nats-Msg-Id') ?? '',
        body: message.string(),
        ...dotted(message.subject),
        at: message.time.getTime(),
      });
    }
    if (got === 0) break;
  }
  return read;
}

export interface AmqpListener {
  /** Every message the exchange routed to the listener's queue, in order. */
  arrivals: Arrival[];
  /** Closes the listener and deletes the exchange. */
  close(): Promise<void>;
}

/**
 * An exclusive queue bound with '#' to a durable topic exchange (declared here, as an operator
 * would before the service publishes: RabbitMQ drops what no queue's binding takes).
 */
export async function listenAmqp(url: string, exchange: string): Promise<AmqpListener> {
  const connection: ChannelModel = await amqpConnect(url);
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, exchange, '#');
  const arrivals: Arrival[] = [];
  await channel.consume(
    queue,
    (message) => {
      if (message === null) return;
      arrivals.push({
        id: String(message.properties.messageId),
        body: message.content.toString('utf8'),
        ...dotted(message.fields.routingKey),
        at: Date.now(),
      });
    },
    { noAck: true },
  );
  return {
    arrivals,
    async close() {
      await channel.deleteExchange(exchange).catch(() => undefined);
      await connection.close().catch(() => undefined);
    },
  };
}

/** Every entry of every Redis stream `<prefix>:<tenant>:<channel>`, each stream in its order. */
export async function redisArrivals(redis: Redis, prefix: string): Promise<Arrival[]> {
  const keys = (await redisKeys(redis, prefix)).sort();
  const read: Arrival[] = [];
  for (const key of keys) {
    const [, tenantId, channel] = key.slice(prefix.length).split(':');
    for (const [entryId, fields] of await redis.xrange(key, '-', '+')) {
      const field = (name: string) => fields[fields.indexOf(name) + 1] ?? '';
      read.push({
        id: field('id'),
        body: field('event'),
        tenantId: tenantId!,
        channelId: channel === '_' ? null : channel!,
        type: field('type'),
        at: Number(entryId.split('-')[0]),
      });
    }
  }
  return read;
}

export async function redisKeys(redis: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

// ---------------------------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------------------------

export interface Delivered {
  /** Copies beyond the first of an event. */
  duplicates: number;
  /** Events expected that arrived. */
  events: number;
}

/** Ids of the expected events missing from `got` (the first few), for a wait's message. */
export function missing(expected: readonly ChainEntry[], got: readonly Arrival[]): string[] {
  const ids = new Set(got.map((a) => a.id));
  return expected.filter((e) => !ids.has(e.hash)).map((e) => `${e.seq} ${e.action}`);
}

/**
 * Holds the copies a destination got to the entries expected of it: every entry arrived, each copy
 * carries the entry's hash as its id and as its body's id, the body is the envelope of the export's
 * line (type, tenant, channel, time, and `data` the line itself), every copy of one event has the
 * same bytes (and, with `bodies`, the same bytes as every other destination's copy), the copies of
 * each (tenant, channel) come in chain order (a redelivery repeats the event in flight, never one
 * before it), and nothing else arrived. With `exactlyOnce`, no event came twice.
 */
export function checkDelivered(
  what: string,
  expected: readonly ChainEntry[],
  got: readonly Arrival[],
  options: { exactlyOnce?: boolean; bodies?: Map<string, string> } = {},
): Delivered {
  const byHash = new Map(expected.map((entry) => [entry.hash, entry]));
  const first = new Map<string, string>();
  const lastSeq = new Map<string, number>();
  let duplicates = 0;
  for (const arrival of got) {
    const entry = byHash.get(arrival.id);
    assert.ok(entry !== undefined, `${what}: an event not expected arrived: ${arrival.body.slice(0, 300)}`);
    const seen = first.get(arrival.id);
    if (seen !== undefined) {
      duplicates++;
      assert.equal(arrival.body, seen, `${what}: a second copy of ${entry.seq} ${entry.action} has other bytes`);
    } else {
      first.set(arrival.id, arrival.body);
      const envelope = JSON.parse(arrival.body) as Record<string, unknown>;
      assert.equal(envelope.id, entry.hash, what);
      assert.equal(envelope.type, entry.action, what);
      assert.equal(envelope.tenantId, entry.tenantId, what);
      assert.equal(envelope.channelId, entry.channelId ?? undefined, what);
      assert.equal(envelope.time, new Date(entry.createdAt).toISOString(), what);
      assert.equal(exportLine(envelope.data as never), `${entry.line}\n`, `${what}: data is the export's line`);
      assert.deepEqual(
        Object.keys(envelope).sort(),
        ['data', 'id', 'tenantId', 'time', 'type', ...(entry.channelId ? ['channelId'] : [])].sort(),
      );
      const reference = options.bodies?.get(arrival.id);
      if (reference === undefined) options.bodies?.set(arrival.id, arrival.body);
      else assert.equal(arrival.body, reference, `${what}: ${entry.seq} ${entry.action} has other bytes than at another destination`);
    }
    assert.equal(arrival.tenantId, entry.tenantId, `${what}: the address names the chain`);
    assert.equal(arrival.channelId, entry.channelId, `${what}: the address names the channel`);
    if (arrival.type !== undefined) assert.equal(arrival.type, entry.action, `${what}: the address names the type`);
    const pair = `${entry.tenantId}/${entry.channelId ?? '_'}`;
    const before = lastSeq.get(pair) ?? -1;
    assert.ok(
      entry.seq >= before,
      `${what}: ${entry.seq} ${entry.action} arrived after ${before} in ${pair}: out of chain order (or an event before the one in flight sent again)`,
    );
    lastSeq.set(pair, entry.seq);
  }
  assert.deepEqual(missing(expected, got), [], `${what}: every event arrived`);
  if (options.exactlyOnce) assert.equal(duplicates, 0, `${what}: no event twice`);
  return { duplicates, events: first.size };
}

/** A counter of GET /metrics, summed over the series whose labels include `labels`. */
export function counter(metrics: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const wanted = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (wanted) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
