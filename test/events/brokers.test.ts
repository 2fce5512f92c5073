import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';
import { type NatsConnection, connect as natsConnect } from '@nats-io/transport-node';
import { connect as amqpConnect, type ChannelModel, type ConsumeMessage } from 'amqplib';
import { Redis } from 'ioredis';
import { openAmqpBroker } from '../../src/events/brokers/amqp-broker.ts';
import {
  type BrokerLogger,
  type EventBroker,
  eventAddress,
  type OutgoingEvent,
  redactedUrl,
} from '../../src/events/brokers/event-broker.ts';
import { natsConnectionOptions, openNatsBroker } from '../../src/events/brokers/nats-broker.ts';
import { openBrokers } from '../../src/events/brokers/open-brokers.ts';
import { openRedisBroker, redisStreamKey } from '../../src/events/brokers/redis-broker.ts';
import { serverNeeded } from '../helpers/backends.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

// Needs RabbitMQ, NATS with JetStream and Redis (.ci/run starts them): whole suite only (`npm test`).
serverNeeded('RabbitMQ, NATS and Redis');

const NATS_HOST = process.env.TEST_NATS_HOST ?? '127.0.0.1:4222';
const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_PORT = Number(NATS_HOST.split(':')[1] ?? 4222);
const AMQP_PORT = Number(new URL(AMQP_URL).port || 5672);
const REDIS_PORT = Number(new URL(REDIS_URL).port || 6379);

/** The publish deadline of the tests: what the outage tests hold each broker to. */
const TIMEOUT_MS = 1500;

/** Names of this run only, so that runs sharing the machine's brokers never meet. */
const RUN = randomBytes(5).toString('hex');
let names = 0;
const unique = (what: string) => `${what}${RUN}${++names}`;

const base36 = (length: number) => Array.from(randomBytes(length), (byte) => '0123456789abcdefghijklmnopqrstuvwxyz'[byte % 36]).join('');
const tenantId = () => `t_${base36(26)}`;
const channelId = () => `chn_${base36(26)}`;

/** Three events of one tenant: dotted and hyphenated types, a channel's and the tenant's own, bodies beyond ASCII. */
function threeEvents(): OutgoingEvent[] {
  const tenant = tenantId();
  const channel = channelId();
  const event = (type: string, channelOf: string | null, n: number): OutgoingEvent => ({
    id: randomBytes(32).toString('hex'),
    type,
    tenantId: tenant,
    channelId: channelOf,
    body: JSON.stringify({ n, type, filename: `résumé ${n} ✓.pdf`, at: '2026-01-02T03:04:05.000Z' }),
  });
  return [event('upload', channel, 1), event('backup.delete', channel, 2), event('admin.sign-out', null, 3)];
}

/** A logger that keeps every line as text, to look for secrets in. */
function capturingLogger(): BrokerLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    warn: (obj, msg) => lines.push(`WARN ${msg} ${JSON.stringify(obj)}`),
    info: (obj, msg) => lines.push(`INFO ${msg} ${JSON.stringify(obj)}`),
  };
}

async function rejectsWithin(broker: EventBroker, event: OutgoingEvent): Promise<{ error: Error; elapsed: number }> {
  const started = Date.now();
  const error = await broker.publish(event, TIMEOUT_MS).then(
    () => assert.fail('publish succeeded while the broker was cut off'),
    (err: Error) => err,
  );
  return { error, elapsed: Date.now() - started };
}

/** Publishes until the broker takes the event (reconnecting takes a moment), for at most 8 s. */
async function publishOnceBack(broker: EventBroker, event: OutgoingEvent): Promise<number> {
  const deadline = Date.now() + 8000;
  for (let attempt = 1; ; attempt++) {
    try {
      await broker.publish(event, TIMEOUT_MS);
      return attempt;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(200);
    }
  }
}

/**
 * The outage every broker must survive: publishes through a proxy that is cut and then forwards
 * again. While cut, publish rejects by the deadline (never hangs, never crashes the process); once
 * forwarding, publish works again on its own.
 */
async function survivesOutage(proxy: TcpProxy, broker: EventBroker, events: OutgoingEvent[]): Promise<void> {
  await broker.publish(events[0]!, TIMEOUT_MS);
  await proxy.cut();
  const { error, elapsed } = await rejectsWithin(broker, events[1]!);
  assert.ok(elapsed < TIMEOUT_MS + 500, `rejected after ${elapsed} ms`);
  assert.match(error.message, new RegExp(broker.setting));
  await proxy.forward();
  await publishOnceBack(broker, events[1]!);
  await broker.publish(events[2]!, TIMEOUT_MS);
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe('event addresses and redaction', () => {
  test('a subject or routing key names tenant and channel by id, the type last; a missing channel is "_"', () => {
    const [upload, backupDelete, signOut] = threeEvents();
    assert.equal(eventAddress('wa.events', upload!), `wa.events.${upload!.tenantId}.${upload!.channelId}.upload`);
    assert.equal(eventAddress('wa', backupDelete!), `wa.${backupDelete!.tenantId}.${backupDelete!.channelId}.backup.delete`);
    assert.equal(eventAddress('wa', signOut!), `wa.${signOut!.tenantId}._.admin.sign-out`);
    assert.equal(eventAddress('wa', { tenantId: 'service', channelId: null, type: 'tenant.create' }), 'wa.service._.tenant.create');
    assert.equal(redisStreamKey('wa', signOut!), `wa:${signOut!.tenantId}:_`);
    assert.equal(redisStreamKey('wa', upload!), `wa:${upload!.tenantId}:${upload!.channelId}`);
  });

  test('ids and types that would inject wildcards or separators are refused, as are such prefixes', () => {
    const good = { tenantId: tenantId(), channelId: channelId(), type: 'upload' };
    for (const bad of [
      { ...good, tenantId: 't_abc.>' },
      { ...good, tenantId: `t_${'a'.repeat(25)}*` },
      { ...good, tenantId: 'T_ABCDEFGHIJKLMNOPQRSTUVWXYZ' },
      { ...good, channelId: `chn_${'a'.repeat(25)}#` },
      { ...good, channelId: 'Display Name' },
      { ...good, type: 'backup.>' },
      { ...good, type: 'backup..delete' },
      { ...good, type: '' },
    ]) {
      assert.throws(() => eventAddress('wa', bad), /is not/, JSON.stringify(bad));
      assert.throws(() => redisStreamKey('wa', bad), /is not/, JSON.stringify(bad));
    }
    for (const prefix of ['wa.>', 'wa.*', 'wa..x', '', 'wa x']) assert.throws(() => eventAddress(prefix, good), /prefix/, prefix);
  });

  test('redactedUrl hides the user information of every URL, and nothing else', () => {
    assert.equal(redactedUrl('amqp://guest:guest@127.0.0.1:5672/vhost'), 'amqp://***@127.0.0.1:5672/vhost');
    assert.equal(redactedUrl('redis://:s3cret-pw@redis.internal:6380/2'), 'redis://***@redis.internal:6380/2');
    assert.equal(redactedUrl('nats://user:pa%40ss@a:4222,nats://tok3n@b:4222'), 'nats://***@a:4222,nats://***@b:4222');
    assert.equal(redactedUrl('nats://127.0.0.1:4222'), 'nats://127.0.0.1:4222');
  });

  test('NATS credentials are taken out of the URL, which the client would not read them from', () => {
    const options = natsConnectionOptions('nats://app:pa%40ss@nats-1:4223, nats://nats-2');
    assert.deepEqual(options.servers, ['nats-1:4223', 'nats-2:4222']);
    assert.equal(options.user, 'app');
    assert.equal(options.pass, 'pa@ss');
    assert.equal(natsConnectionOptions('nats://s3cr3t-token@h').token, 's3cr3t-token');
    assert.throws(
      () => natsConnectionOptions('http://u:hunter2-pw@h'),
      (err: Error) => !err.message.includes('hunter2-pw'),
    );
    assert.throws(
      () => natsConnectionOptions('nats://u:hunter2-pw@[bad'),
      (err: Error) => !err.message.includes('hunter2-pw'),
    );
  });

  test('openBrokers opens one publisher per URL set, named by its setting, and connects to none', async () => {
    const settings = { natsStream: 'S', amqpExchange: 'x', redisMaxLen: 10, prefix: 'wa' };
    assert.deepEqual(openBrokers(settings), []);
    const brokers = openBrokers({
      ...settings,
      natsUrl: 'nats://127.0.0.1:1',
      amqpUrl: 'amqp://guest:guest@127.0.0.1:1',
      redisUrl: 'redis://127.0.0.1:1',
    });
    assert.deepEqual(
      brokers.map((broker) => broker.setting),
      ['EVENTS_NATS_URL', 'EVENTS_AMQP_URL', 'EVENTS_REDIS_URL'],
    );
    await Promise.all(brokers.map((broker) => broker.close()));
  });

  test('an unreachable broker: publish rejects by the deadline, without the password in the error or the log', async () => {
    const port = await freePort();
    const logger = capturingLogger();
    const secret = 'unreachable-s3cret';
    const brokers = openBrokers(
      {
        natsUrl: `nats://app:${secret}@127.0.0.1:${port}`,
        natsStream: unique('WA_TEST_'),
        amqpUrl: `amqp://guest:${secret}@127.0.0.1:${port}`,
        amqpExchange: unique('wa-test.'),
        redisUrl: `redis://:${secret}@127.0.0.1:${port}`,
        redisMaxLen: 10,
        prefix: unique('watest'),
      },
      logger,
    );
    try {
      for (const broker of brokers) {
        const { error, elapsed } = await rejectsWithin(broker, threeEvents()[0]!);
        assert.ok(elapsed < TIMEOUT_MS + 500, `${broker.setting} rejected after ${elapsed} ms`);
        assert.ok(error.message.startsWith(`${broker.setting} (`), error.message);
        assert.ok(!error.message.includes(secret), error.message);
        assert.ok(error.message.includes('***@127.0.0.1'), error.message);
      }
    } finally {
      await Promise.all(brokers.map((broker) => broker.close()));
    }
    for (const line of logger.lines) assert.ok(!line.includes(secret), line);
  });
});

describe('NATS JetStream', () => {
  let nc: NatsConnection;
  const streams: string[] = [];
  before(async () => {
    nc = await natsConnect({ servers: NATS_HOST });
  });
  after(async () => {
    const jsm = await jetstreamManager(nc);
    for (const stream of streams) await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  });

  /** Every message of the stream, in order, through an ordered consumer. */
  async function readStream(stream: string, count: number) {
    const consumer = await jetstream(nc).consumers.get(stream);
    const messages = await consumer.fetch({ max_messages: count, expires: 3000 });
    const read = [];
    for await (const message of messages) read.push(message);
    return read;
  }

  test('publishes each event to <prefix>.<tenant>.<channel>.<type> with its id as Nats-Msg-Id, in order, once', async () => {
    const stream = unique('WA_TEST_');
    const prefix = unique('watest');
    streams.push(stream);
    const logger = capturingLogger();
    const broker = openNatsBroker({ url: `nats://${NATS_HOST}`, stream, subjectPrefix: prefix, logger });
    const events = threeEvents();
    try {
      for (const event of events) await broker.publish(event, TIMEOUT_MS);
      // A redelivery after a lost ack: JetStream's duplicate window keeps one copy.
      await broker.publish(events[1]!, TIMEOUT_MS);
    } finally {
      await broker.close();
    }
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    assert.deepEqual(info.config.subjects, [`${prefix}.>`]);
    assert.equal(info.config.storage, StorageType.File);
    assert.equal(info.state.messages, 3);

    const read = await readStream(stream, 3);
    assert.deepEqual(
      read.map((message) => message.subject),
      events.map((event) => `${prefix}.${event.tenantId}.${event.channelId ?? '_'}.${event.type}`),
    );
    for (const [i, message] of read.entries()) {
      const event = events[i]!;
      assert.equal(message.headers?.get('Nats-Msg-Id'), event.id);
      assert.equal(message.headers?.get('Content-Type'), 'application/json');
      assert.equal(message.headers?.get('wallet-admin-event-type'), event.type);
      assert.deepEqual(Buffer.from(message.data), Buffer.from(event.body, 'utf8'));
      assert.equal(message.seq, i + 1);
    }
    assert.ok(logger.lines.some((line) => line.includes('Created the JetStream stream')));
  });

  test('a stream that exists keeps the configuration its operator gave it', async () => {
    const stream = unique('WA_TEST_');
    const prefix = unique('watest');
    streams.push(stream);
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`], storage: StorageType.Memory, max_msgs: 1000 });
    const broker = openNatsBroker({ url: `nats://${NATS_HOST}`, stream, subjectPrefix: prefix });
    try {
      await broker.publish(threeEvents()[0]!, TIMEOUT_MS);
    } finally {
      await broker.close();
    }
    const info = await jsm.streams.info(stream);
    assert.equal(info.config.storage, StorageType.Memory);
    assert.equal(info.config.max_msgs, 1000);
    assert.equal(info.state.messages, 1);
  });

  test('survives an outage: rejects by the deadline while cut off, publishes again once back', async (t) => {
    const stream = unique('WA_TEST_');
    const prefix = unique('watest');
    streams.push(stream);
    const proxy = await startTcpProxy(NATS_PORT);
    const logger = capturingLogger();
    const broker = openNatsBroker({ url: `nats://app:nats-s3cret-pw@127.0.0.1:${proxy.port}`, stream, subjectPrefix: prefix, logger });
    t.after(async () => {
      await broker.close();
      await proxy.close();
    });
    const events = threeEvents();
    await survivesOutage(proxy, broker, events);
    // Every event is stored once, whatever the rejected publish left buffered for the reconnection.
    const read = await readStream(stream, 3);
    assert.deepEqual(
      read.map((message) => message.headers?.get('Nats-Msg-Id')),
      events.map((event) => event.id),
    );
    assert.ok(logger.lines.some((line) => line.includes('NATS connection lost')));
    for (const line of logger.lines) assert.ok(!line.includes('nats-s3cret-pw'), line);
  });
});

describe('AMQP (RabbitMQ)', () => {
  let consumer: ChannelModel;
  const exchanges: string[] = [];
  before(async () => {
    consumer = await amqpConnect(AMQP_URL);
  });
  after(async () => {
    const channel = await consumer.createChannel();
    for (const exchange of exchanges) await channel.deleteExchange(exchange);
    await consumer.close();
  });

  /** An exclusive queue bound to the whole exchange (declared first, as the broker would), and what it receives. */
  async function listen(exchange: string) {
    exchanges.push(exchange);
    const channel = await consumer.createChannel();
    await channel.assertExchange(exchange, 'topic', { durable: true });
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    await channel.bindQueue(queue, exchange, '#');
    const received: ConsumeMessage[] = [];
    await channel.consume(queue, (message) => message && received.push(message), { noAck: true });
    return {
      received,
      async until(count: number) {
        const deadline = Date.now() + 3000;
        while (received.length < count && Date.now() < deadline) await sleep(20);
        await channel.close();
        return received;
      },
    };
  }

  test('publishes persistent, confirmed messages to <prefix>.<tenant>.<channel>.<type> with id, type and content type', async () => {
    const exchange = unique('wa-test.events.');
    const prefix = unique('watest');
    const queue = await listen(exchange);
    const logger = capturingLogger();
    const broker = openAmqpBroker({ url: AMQP_URL, exchange, routingKeyPrefix: prefix, logger });
    const events = threeEvents();
    try {
      for (const event of events) await broker.publish(event, TIMEOUT_MS);
    } finally {
      await broker.close();
    }
    const received = await queue.until(3);
    assert.deepEqual(
      received.map((message) => message.fields.routingKey),
      events.map((event) => `${prefix}.${event.tenantId}.${event.channelId ?? '_'}.${event.type}`),
    );
    for (const [i, message] of received.entries()) {
      const event = events[i]!;
      assert.equal(message.fields.exchange, exchange);
      assert.equal(message.properties.messageId, event.id);
      assert.equal(message.properties.type, event.type);
      assert.equal(message.properties.contentType, 'application/json');
      assert.equal(message.properties.deliveryMode, 2, 'persistent');
      assert.equal(message.properties.headers?.['wallet-admin-event-type'], event.type);
      assert.deepEqual(message.content, Buffer.from(event.body, 'utf8'));
    }
    for (const line of logger.lines) assert.ok(!line.includes('guest:guest'), line);
  });

  test('survives an outage: rejects by the deadline while cut off, publishes again once back', async (t) => {
    const exchange = unique('wa-test.events.');
    const queue = await listen(exchange);
    const proxy = await startTcpProxy(AMQP_PORT);
    const logger = capturingLogger();
    const url = new URL(AMQP_URL);
    url.port = String(proxy.port);
    const broker = openAmqpBroker({ url: url.href, exchange, routingKeyPrefix: unique('watest'), logger });
    t.after(async () => {
      await broker.close();
      await proxy.close();
    });
    const events = threeEvents();
    await survivesOutage(proxy, broker, events);
    const ids = new Set((await queue.until(3)).map((message) => message.properties.messageId));
    assert.deepEqual([...ids].sort(), events.map((event) => event.id).sort());
    assert.ok(
      logger.lines.some((line) => line.includes('AMQP connection for event delivery lost')),
      logger.lines.join('\n'),
    );
    for (const line of logger.lines) assert.ok(!line.includes('guest:guest'), line);
  });

  test('refused credentials: publish rejects, neither the error nor the log holds the password', async () => {
    const secret = 'amqp-wrong-s3cret';
    const url = new URL(AMQP_URL);
    url.username = 'wallet-admin-test-nobody';
    url.password = secret;
    const logger = capturingLogger();
    const broker = openAmqpBroker({ url: url.href, exchange: unique('wa-test.events.'), routingKeyPrefix: 'watest', logger });
    try {
      const { error } = await rejectsWithin(broker, threeEvents()[0]!);
      assert.match(error.message, /ACCESS.REFUSED|403/);
      assert.ok(!error.message.includes(secret), error.message);
    } finally {
      await broker.close();
    }
    for (const line of logger.lines) assert.ok(!line.includes(secret), line);
  });
});

describe('Redis streams', () => {
  let redis: Redis;
  const keys: string[] = [];
  before(() => {
    redis = new Redis(REDIS_URL);
  });
  after(async () => {
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  /** A stream's entries as [entry id, fields as an object]. */
  const entries = async (key: string) =>
    (await redis.xrange(key, '-', '+')).map(([id, fields]) => [id, Object.fromEntries(pairs(fields))] as const);
  const pairs = (fields: string[]) => fields.flatMap((field, i) => (i % 2 === 0 ? [[field, fields[i + 1]!] as const] : []));

  test('adds each event to <prefix>:<tenant>:<channel> with its id, type and body, in order', async () => {
    const prefix = unique('watest.');
    const logger = capturingLogger();
    const broker = openRedisBroker({ url: REDIS_URL, streamPrefix: prefix, maxLen: 1000, logger });
    const events = threeEvents();
    const channelKey = `${prefix}:${events[0]!.tenantId}:${events[0]!.channelId}`;
    const tenantKey = `${prefix}:${events[0]!.tenantId}:_`;
    keys.push(channelKey, tenantKey);
    try {
      for (const event of events) await broker.publish(event, TIMEOUT_MS);
    } finally {
      await broker.close();
    }
    const inChannel = await entries(channelKey);
    assert.deepEqual(
      inChannel.map(([, fields]) => fields),
      events.slice(0, 2).map((event) => ({ id: event.id, type: event.type, event: event.body })),
    );
    assert.deepEqual(
      (await entries(tenantKey)).map(([, fields]) => fields),
      [{ id: events[2]!.id, type: events[2]!.type, event: events[2]!.body }],
    );
    // The bytes as stored, not only as decoded.
    const [, raw] = (await redis.xrangeBuffer(channelKey, '-', '+'))[0]!;
    assert.deepEqual(raw[5], Buffer.from(events[0]!.body, 'utf8'));
    assert.ok(inChannel[0]![0] < inChannel[1]![0], 'entry ids in publishing order');
  });

  test('trims each stream to about maxLen entries', async () => {
    const prefix = unique('watest.');
    const broker = openRedisBroker({ url: REDIS_URL, streamPrefix: prefix, maxLen: 1, logger: capturingLogger() });
    const event = threeEvents()[0]!;
    const key = redisStreamKey(prefix, event);
    keys.push(key);
    try {
      // MAXLEN ~ trims whole nodes of the stream (100 entries by default), so past a node it must have trimmed.
      for (let i = 0; i < 250; i++) await broker.publish({ ...event, id: randomBytes(32).toString('hex') }, TIMEOUT_MS);
    } finally {
      await broker.close();
    }
    assert.ok((await redis.xlen(key)) < 250);
  });

  test('survives an outage: rejects by the deadline while cut off, publishes again once back', async (t) => {
    const prefix = unique('watest.');
    const proxy = await startTcpProxy(REDIS_PORT);
    const logger = capturingLogger();
    const url = new URL(REDIS_URL);
    url.port = String(proxy.port);
    const broker = openRedisBroker({ url: url.href, streamPrefix: prefix, maxLen: 1000, logger });
    t.after(async () => {
      await broker.close();
      await proxy.close();
    });
    const events = threeEvents();
    keys.push(redisStreamKey(prefix, events[0]!), redisStreamKey(prefix, events[2]!));
    await survivesOutage(proxy, broker, events);
    const stored = [...(await entries(redisStreamKey(prefix, events[0]!))), ...(await entries(redisStreamKey(prefix, events[2]!)))];
    assert.deepEqual(new Set(stored.map(([, fields]) => fields.id)), new Set(events.map((event) => event.id)));
    assert.equal(logger.lines.filter((line) => line.startsWith('WARN')).length, 1, 'one warning for the outage');
  });

  test('refused credentials: publish rejects, neither the error nor the log holds the password', async () => {
    const secret = 'redis-wrong-s3cret';
    const url = new URL(REDIS_URL);
    url.username = 'wallet-admin-test-nobody';
    url.password = secret;
    const logger = capturingLogger();
    const broker = openRedisBroker({ url: url.href, streamPrefix: unique('watest.'), maxLen: 10, logger });
    try {
      const { error } = await rejectsWithin(broker, threeEvents()[0]!);
      assert.ok(!error.message.includes(secret), error.message);
      assert.ok(
        logger.lines.some((line) => line.includes('WRONGPASS')),
        logger.lines.join('\n'),
      );
    } finally {
      await broker.close();
    }
    for (const line of logger.lines) assert.ok(!line.includes(secret), line);
  });
});
