import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { type NatsConnection, connect as natsConnect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { AdministrationAudit } from '../../src/administration/administration-audit.ts';
import { DirectoryChanges } from '../../src/administration/directory-changes.ts';
import { chainExport } from '../../src/administration/tenant-audit.ts';
import { AdminApi } from '../administration/admin-client.ts';
import { serverNeeded } from '../helpers/backends.ts';
import {
  type AmqpListener,
  type Arrival,
  type ChainEntry,
  checkDelivered,
  counter,
  type EventReceiver,
  listenAmqp,
  missing,
  natsArrivals,
  parseExport,
  redisArrivals,
  redisKeys,
  startEventReceiver,
  until,
} from '../helpers/event-sinks.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { request } from '../helpers/http.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn } from '../helpers/wallets.ts';

// Needs RabbitMQ, NATS with JetStream and Redis (.ci/run starts them): whole suite only (`npm test`).
serverNeeded('RabbitMQ, NATS and Redis');

const NATS_HOST = process.env.TEST_NATS_HOST ?? '127.0.0.1:4222';
const AMQP_URL = process.env.TEST_AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NATS_PORT = Number(NATS_HOST.split(':')[1] ?? 4222);

/** Names of this run only, so that runs sharing the machine's brokers never meet. */
const RUN = randomBytes(5).toString('hex');
const PREFIX = `wae2e${RUN}`;
const STREAM = `WA_E2E_${RUN}`;
const EXCHANGE = `wa-e2e.${RUN}`;
const DOMAIN = 'events.example.com';
const BROKERS = ['EVENTS_NATS_URL', 'EVENTS_AMQP_URL', 'EVENTS_REDIS_URL'] as const;
/** One attempt's deadline: a publish to a NATS that is cut off fails after it. */
const TIMEOUT_MS = 1000;
/** How long a wait for deliveries may take before the test fails: a loaded 2-core machine is slow, never this slow. */
const WAIT_MS = 20_000;

/**
 * Events out end to end (docs/events.md): one service with all three brokers (NATS through a TCP
 * proxy) and a webhook. What the tenant's chain records — uploads, a replacement, a delete,
 * backups, a lock, a restore, a backup deleted, admins, invitations, a channel, the policy,
 * webhooks — reaches every broker from the chain's first entry and the webhook from its creation,
 * each 'ok' entry with the export's id and bytes, in chain order per channel; refusals reach none;
 * the service-wide chain (tenants created as the operator's CLI creates them) reaches every broker.
 * Then NATS is cut off: its attempts are retried (metrics, log), the others go on as before,
 * uploads answer as fast as before, and once NATS is back every event reaches it.
 */
describe('events out to NATS, RabbitMQ, Redis and a webhook, end to end', () => {
  let svc: TestService;
  let proxy: TcpProxy;
  let amqp: AmqpListener;
  let nc: NatsConnection;
  let redis: Redis;
  let receiver: EventReceiver;
  /** What the operator's CLI changes with (`tenant create`, `admin create`): the same code, in this process. */
  let operator: DirectoryChanges;
  let tenantId: string;
  let owner: AdminApi;
  let files: FilesClient;
  let channelId: string;
  /** Every destination's copy of an event, by id: the same bytes everywhere. */
  const bodies = new Map<string, string>();

  const exported = async () => {
    const answer = await owner.get('/api/audit/export');
    assert.equal(answer.status, 200, answer.body);
    return parseExport(answer.body);
  };
  /** `audit export --service`, as the CLI makes it. */
  const serviceChain = async () => {
    let text = '';
    for await (const page of chainExport(svc.service.store.files, 'service', 0)) text += page;
    return parseExport(text);
  };
  const ok = (entries: ChainEntry[]) => entries.filter((e) => e.result === 'ok');
  const brokerArrivals = async (): Promise<Record<string, Arrival[]>> => ({
    nats: await natsArrivals(nc, STREAM),
    amqp: [...amqp.arrivals],
    redis: await redisArrivals(redis, PREFIX),
  });
  /** Waits until every destination named has every entry expected of it. */
  const delivered = async (expected: Record<string, ChainEntry[]>, timeoutMs = WAIT_MS) => {
    let lacking: Record<string, string[]> = {};
    await until(
      async () => {
        const got: Record<string, Arrival[]> = { ...(await brokerArrivals()), webhook: [...receiver.arrivals] };
        lacking = Object.fromEntries(
          Object.entries(expected)
            .map(([name, entries]) => [name, missing(entries, got[name]!)] as const)
            .filter(([, left]) => left.length > 0),
        );
        return Object.keys(lacking).length === 0;
      },
      timeoutMs,
      () => `still missing: ${JSON.stringify(lacking).slice(0, 800)}`,
    );
  };
  const metrics = async () => (await request(svc.baseUrl, '/metrics')).body;

  before(async () => {
    amqp = await listenAmqp(AMQP_URL, EXCHANGE);
    nc = await natsConnect({ servers: NATS_HOST });
    redis = new Redis(REDIS_URL);
    proxy = await startTcpProxy(NATS_PORT);
    receiver = await startEventReceiver();
    svc = await startTestService('sqlite', {
      env: {
        AUTH_DOMAINS: DOMAIN,
        OUTBOUND_ALLOW: '127.0.0.0/8',
        EVENTS_NATS_URL: `nats://127.0.0.1:${proxy.port}`,
        EVENTS_NATS_STREAM: STREAM,
        EVENTS_AMQP_URL: AMQP_URL,
        EVENTS_AMQP_EXCHANGE: EXCHANGE,
        EVENTS_REDIS_URL: REDIS_URL,
        EVENTS_PREFIX: PREFIX,
        EVENTS_POLL_INTERVAL: '30',
        EVENTS_TIMEOUT: String(TIMEOUT_MS),
        EVENTS_BACKOFF_MAX: '250',
        EVENTS_RETRY_FOR: '600',
      },
    });
    const { store } = svc.service;
    operator = new DirectoryChanges(store, new AdministrationAudit(store.files), { adminId: null, operator: 'e2e-ops' });
    // Each broker's first look marks it seen (every chain then starts at its head): only after it
    // is the tenant made, so that its chain is new to every broker and streams from its first entry.
    const { events } = svc.service.store;
    await until(
      async () => (await Promise.all(BROKERS.map((b) => events.streamOf(b, '')))).every((s) => s !== undefined),
      WAIT_MS,
      () => 'the brokers were looked at',
    );
    // A tenant's creation goes to the service-wide chain (store.createTenant alone would write no entry).
    tenantId = (await operator.createTenant({ name: `E2E ${RUN}` })).id;
    const wallet = newWallet();
    await operator.createAdmin({ tenantId, wallet: wallet.address, displayName: 'Owner' });
    owner = new AdminApi(svc.baseUrl, wallet, DOMAIN);
    const channel = await owner.post('/api/channels', { name: 'main' });
    assert.equal(channel.status, 201, channel.body);
    channelId = channel.json().id;
    files = new FilesClient(svc.baseUrl, channelId, { ...(await signIn(wallet, DOMAIN)) });
  });

  after(async () => {
    await svc?.close();
    await proxy?.close();
    await receiver?.close();
    await amqp?.close();
    if (nc !== undefined) {
      await (await jetstreamManager(nc)).streams.delete(STREAM).catch(() => undefined);
      await nc.close();
    }
    if (redis !== undefined) {
      const keys = await redisKeys(redis, PREFIX);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });

  test("every 'ok' entry of the tenant's chain reaches each broker and the webhook, as exported, in order per channel", async () => {
    const hook = await owner.post('/api/webhooks', { url: receiver.url });
    assert.equal(hook.status, 201, hook.body);

    assert.equal((await files.put('docs', 'a.txt', 'one')).status, 201);
    assert.equal((await files.put('docs', 'a.txt', 'two')).status, 200);
    assert.equal((await files.put('docs', 'b.txt', 'bee')).status, 201);
    const first = await files.backup();
    assert.equal(first.status, 201, first.body);
    const backups = `/api/channels/${channelId}/backups`;
    const held = await owner.send('PUT', `${backups}/${first.json().timestamp}/lock`, { legalHold: true });
    assert.equal(held.status, 200, held.body);
    await nextSecond();
    assert.equal((await files.put('docs', 'a.txt', 'three')).status, 200);
    const restored = await files.restore('docs', 'a.txt', `?backupTimestamp=${first.json().timestamp}`);
    assert.equal(restored.status, 200, restored.body);
    assert.equal((await files.delete('docs', 'b.txt')).status, 204);
    const second = await files.backup();
    assert.equal(second.status, 201, second.body);
    assert.equal((await owner.delete(`${backups}/${second.json().timestamp}`)).status, 204);
    // Refusals are in the chain, and carried by no destination here (EVENTS_BROKER_RESULTS and the webhook's results: ok).
    assert.equal((await files.delete('docs', 'nothing-here.txt')).status, 404);
    assert.equal((await files.restore('docs', 'a.txt', '?backupTimestamp=20000101_000000')).status, 404);

    const colleague = await owner.post('/api/admins', { displayName: 'Cy', wallet: newWallet().address, permissions: ['files:read'] });
    assert.equal(colleague.status, 201, colleague.body);
    assert.equal((await owner.patch(`/api/admins/${colleague.json().id}`, { status: 'SUSPENDED' })).status, 200);
    const invited = await owner.post('/api/invitations', { permissions: ['files:read'], expiresIn: 3600 });
    assert.equal(invited.status, 201, invited.body);
    const revoked = await owner.delete(`/api/invitations/${invited.json().id}`);
    assert.ok(revoked.status === 200 || revoked.status === 204, revoked.body);
    const other = await owner.post('/api/channels', { name: 'second' });
    assert.equal(other.status, 201, other.body);
    const policy = await owner.send('PUT', '/api/policies', {
      rules: [{ operation: 'channel.restore', approvals: 1, permission: 'files:restore' }],
    });
    assert.equal(policy.status, 200, policy.body);
    const silent = await owner.post('/api/webhooks', { url: `${receiver.url}-unused`, types: ['retention'] });
    assert.equal(silent.status, 201, silent.body);
    assert.equal((await owner.patch(`/api/webhooks/${silent.json().id}`, { paused: true })).status, 200);
    assert.equal((await owner.delete(`/api/webhooks/${silent.json().id}`)).status, 204);
    // A burst over both channels, side by side.
    const otherFiles = new FilesClient(svc.baseUrl, other.json().id, files.auth);
    const burst = await Promise.all(
      Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? files : otherFiles).put('burst', `f${i % 6}.bin`, randomBytes(64))),
    );
    for (const answer of burst) assert.ok(answer.status === 200 || answer.status === 201, answer.body);

    const entries = await exported();
    const created = entries.findIndex((e) => e.action === 'webhook.create');
    assert.ok(
      entries.some((e) => e.result !== 'ok'),
      'the chain holds refusals, which no destination carries',
    );
    const chain = ok(entries);
    const afterHook = ok(entries.slice(created + 1));
    for (const broker of BROKERS) {
      assert.equal((await svc.service.store.events.streamOf(broker, tenantId))?.startSeq, 0, `${broker} streams the chain from its start`);
    }
    await delivered({ nats: chain, amqp: chain, redis: chain, webhook: afterHook });

    const got = await brokerArrivals();
    const ofTenant = (list: Arrival[]) => list.filter((a) => a.tenantId === tenantId);
    for (const name of ['nats', 'amqp', 'redis'] as const) {
      const report = checkDelivered(name, chain, ofTenant(got[name]!), { bodies });
      assert.equal(report.events, chain.length);
    }
    checkDelivered('webhook', afterHook, receiver.arrivals, { bodies });
    const types = new Set(chain.map((e) => e.action));
    for (const type of [
      'admin.create',
      'channel.create',
      'webhook.create',
      'upload',
      'backup',
      'backup.lock',
      'restore',
      'delete',
      'backup.delete',
      'admin.update',
      'invitation.create',
      'invitation.revoke',
      'policy.change',
      'webhook.change',
      'webhook.delete',
    ]) {
      assert.ok(types.has(type), `the chain holds a ${type}`);
    }
    assert.ok(new Set(chain.map((e) => e.channelId)).size >= 3, 'two channels and the tenant’s own events');
  });

  test('the service-wide chain (tenants the operator created) reaches every broker', async () => {
    const made = await operator.createTenant({ name: `E2E second ${RUN}` });
    const chain = ok(await serviceChain());
    const ours = chain.filter(
      (e) => e.action === 'tenant.create' && [tenantId, made.id].includes((e.data.change as { after: { id: string } }).after.id),
    );
    assert.equal(ours.length, 2, 'both tenants created are in the service-wide chain');
    for (const broker of BROKERS) {
      assert.equal((await svc.service.store.events.streamOf(broker, 'service'))?.startSeq, 0, `${broker} streams it from its start`);
    }
    await delivered({ nats: chain, amqp: chain, redis: chain });
    const got = await brokerArrivals();
    for (const name of ['nats', 'amqp', 'redis'] as const) {
      const service = got[name]!.filter((a) => a.tenantId === 'service');
      checkDelivered(`${name} (service-wide chain)`, chain, service, { bodies });
    }
    assert.ok(
      receiver.arrivals.every((a) => a.tenantId === tenantId),
      'a webhook carries its own tenant’s chain only',
    );
  });

  test('NATS cut off: retried with the others unaffected and uploads as fast as before; once back, every event arrives', async (t) => {
    const timed = async (name: string) => {
      const started = performance.now();
      const answer = await files.put('outage', name, randomBytes(256));
      assert.ok(answer.status === 200 || answer.status === 201, answer.body);
      return performance.now() - started;
    };
    const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.floor(q * (values.length - 1))]!;
    const UPLOADS = 15;
    const before = [];
    for (let i = 0; i < UPLOADS; i++) before.push(await timed(`before-${i}.bin`));
    let chain = ok(await exported());
    const afterHook = () => chain.filter((e) => e.seq > chain.find((x) => x.action === 'webhook.create')!.seq);
    await delivered({ nats: chain, amqp: chain, redis: chain, webhook: afterHook() });
    const retryingBefore = counter(await metrics(), 'wallet_admin_event_attempts_total', { kind: 'nats', result: 'retrying' });

    await proxy.cut();
    const cutAt = Date.now();
    const during = [];
    for (let i = 0; i < UPLOADS; i++) during.push(await timed(`during-${i}.bin`));
    const colleague = await owner.post('/api/admins', { displayName: 'Dee', wallet: newWallet().address, permissions: [] });
    assert.equal(colleague.status, 201, colleague.body);
    chain = ok(await exported());
    const cutOff = chain.filter((e) => e.createdAt >= cutAt);
    assert.equal(cutOff.length, UPLOADS + 1);
    // The webhook and the other brokers are not held up by NATS: everything, while NATS is still away.
    const waited = Date.now();
    await delivered({ amqp: chain, redis: chain, webhook: afterHook() }, 10_000);
    const othersMs = Date.now() - waited;
    // Some attempts at NATS were made and retried meanwhile.
    await until(
      async () => counter(await metrics(), 'wallet_admin_event_attempts_total', { kind: 'nats', result: 'retrying' }) >= retryingBefore + 2,
      WAIT_MS,
      () => 'two attempts at NATS retried',
    );
    assert.deepEqual(
      (await natsArrivals(nc, STREAM)).filter((a) => cutOff.some((e) => e.hash === a.id)),
      [],
      'nothing reached NATS through the cut',
    );
    assert.ok(
      svc.logs.some((line) => line.includes('NATS connection lost')),
      'the log says NATS was lost',
    );
    const outageMs = Date.now() - cutAt;

    await proxy.forward();
    const back = Date.now();
    await delivered({ nats: chain });
    const recoveredMs = Date.now() - back;
    assert.ok(
      svc.logs.some((line) => line.includes('NATS connection restored')),
      'the log says NATS is back',
    );
    const retried = counter(await metrics(), 'wallet_admin_event_attempts_total', { kind: 'nats', result: 'retrying' }) - retryingBefore;
    assert.equal(counter(await metrics(), 'wallet_admin_event_attempts_total', { result: 'dead' }), 0, 'nothing dead-lettered');

    // The whole chain, once more, at every destination: nothing lost, nothing out of order, the same bytes everywhere.
    chain = ok(await exported());
    await delivered({ nats: chain, amqp: chain, redis: chain, webhook: afterHook() });
    const got = await brokerArrivals();
    for (const name of ['nats', 'amqp', 'redis'] as const) {
      checkDelivered(
        name,
        chain,
        got[name]!.filter((a) => a.tenantId === tenantId),
        { bodies },
      );
    }
    checkDelivered('webhook', afterHook(), receiver.arrivals, { bodies });

    // The upload path never waited on NATS: an upload that did would take EVENTS_TIMEOUT.
    const p50 = { before: quantile(before, 0.5), during: quantile(during, 0.5) };
    const slowest = Math.max(...during);
    assert.ok(
      quantile(during, 0.9) < TIMEOUT_MS,
      `uploads during the outage took no attempt's deadline (slowest ${Math.round(slowest)} ms)`,
    );
    assert.ok(
      p50.during <= 2 * p50.before + 50,
      `uploads answered as fast during the outage: p50 ${p50.during.toFixed(1)} ms against ${p50.before.toFixed(1)} ms`,
    );
    t.diagnostic(
      `uploads p50 ${p50.before.toFixed(1)} ms before, ${p50.during.toFixed(1)} ms during the outage (max ${slowest.toFixed(1)} ms); ` +
        `the others had everything ${othersMs} ms after the last change; NATS away ${outageMs} ms, ${retried} attempts retried, ` +
        `every event there ${recoveredMs} ms after it came back`,
    );
  });
});
