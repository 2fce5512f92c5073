import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { AdminApi } from '../administration/admin-client.ts';
import {
  type ChainEntry,
  checkDelivered,
  counter,
  type EventReceiver,
  missing,
  parseExport,
  startEventReceiver,
  until,
} from '../helpers/event-sinks.ts';
import { FilesClient } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { type ServiceProcess, spawnService, waitUntilReady } from '../helpers/service-process.ts';
import { createStorage, freePort, type Storage, startTestService, storageEnv, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn } from '../helpers/wallets.ts';

const DOMAIN = 'instances.example.com';
/** One attempt's deadline; a pair's lease is this + 2 s, which a takeover waits out. */
const EVENTS_TIMEOUT_MS = 1000;
const LEASE_MS = EVENTS_TIMEOUT_MS + 2000;
const ENV = {
  AUTH_DOMAINS: DOMAIN,
  OUTBOUND_ALLOW: '127.0.0.0/8',
  // Every instance opens the webhooks' sealed URLs and secrets with it (PostgreSQL keeps none).
  SECRETS_KEY: randomBytes(32).toString('hex'),
  EVENTS_POLL_INTERVAL: '30',
  EVENTS_TIMEOUT: String(EVENTS_TIMEOUT_MS),
  EVENTS_BACKOFF_MAX: '100',
  EVENTS_RETRY_FOR: '600',
};

/**
 * Instances share the delivery through the leases in the database (docs/events.md, "Delivery").
 * Two instances on one PostgreSQL database and one webhook: each event is delivered once, in
 * chain order per channel, whichever instance took the write and whichever delivered it. One
 * closed mid-stream (its attempt in flight finishes and its leases are let go): the other goes on,
 * nothing lost or sent twice. One killed mid-stream (SIGKILL, in its own process): its pairs wait
 * until their leases lapse, then the other takes them over; nothing lost, and what is sent again is
 * the event that was in flight, with the same id and bytes.
 */
let storage: Storage;
let first: TestService;
let firstClosed = false;
let second: TestService;
let fixture: TenantFixture;
let receiver: EventReceiver;
let db: pg.Client;
let owner: AdminApi;
let webhookId: string;
/** A FilesClient per channel on each instance. */
let clients: { first: FilesClient[]; second: FilesClient[] };
const bodies = new Map<string, string>();

before(async () => {
  storage = await createStorage('postgres');
  first = await startTestService('postgres', { storage, env: ENV });
  second = await startTestService('postgres', { storage, env: ENV });
  fixture = await createTenantFixture(first.service.store, 'Instances');
  const { store } = first.service;
  const channels = [fixture.channel];
  for (const name of ['two', 'three']) {
    const channel = await store.createChannel({ tenantId: fixture.tenant.id, name });
    await store.linkChannel(channel.id, fixture.owner.id);
    channels.push(channel);
  }
  const auth = { ...(await signIn(fixture.ownerWallet, DOMAIN)) };
  clients = {
    first: channels.map((c) => new FilesClient(first.baseUrl, c.id, auth)),
    second: channels.map((c) => new FilesClient(second.baseUrl, c.id, auth)),
  };
  receiver = await startEventReceiver();
  owner = new AdminApi(first.baseUrl, fixture.ownerWallet, DOMAIN);
  const made = await owner.post('/api/webhooks', { url: receiver.url });
  assert.equal(made.status, 201, made.body);
  webhookId = made.json().id;
  db = new pg.Client({ connectionString: storage.databaseUrl });
  await db.connect();
});
after(async () => {
  await db?.end();
  if (!firstClosed) await first?.close();
  await second?.close();
  await receiver?.close();
  await storage?.drop();
});

/** Every 'ok' entry after the webhook's creation: what it must carry. */
async function expected(): Promise<ChainEntry[]> {
  const entries = parseExport((await new AdminApi(second.baseUrl, fixture.ownerWallet, DOMAIN).get('/api/audit/export')).body);
  const created = entries.find((e) => e.action === 'webhook.create')!;
  return entries.filter((e) => e.seq > created.seq && e.result === 'ok');
}

async function allArrived(timeoutMs = 20_000): Promise<ChainEntry[]> {
  const wanted = await expected();
  await until(
    () => missing(wanted, receiver.arrivals).length === 0,
    timeoutMs,
    () => `missing ${missing(wanted, receiver.arrivals).join(', ')}`,
  );
  return wanted;
}

/** Attempts that failed (a timeout, a lost answer) and were made again: what may explain a copy sent twice. */
async function failedAttempts(): Promise<number> {
  const log = await second.service.store.events.listDeliveries(webhookId, { limit: 10_000 });
  return log.items.reduce((sum, d) => sum + d.attempts - 1, 0);
}

/** The pairs whose lease is held now, by which token, until when. */
async function leases(): Promise<{ channelKey: string; token: string; until: number }[]> {
  const { rows } = await db.query(
    'select channel_key, lease_token, lease_until from event_cursors where destination = $1 and lease_until > $2',
    [webhookId, Date.now()],
  );
  return rows.map((r) => ({ channelKey: r.channel_key, token: r.lease_token, until: Number(r.lease_until) }));
}

/** Whether a POST of the pair's channel is out (sent, not answered): only the pair's lease holder sends it. */
const outFor = (channelKey: string) => receiver.pending.some((a) => (a.channelId ?? '') === channelKey);

const tokenOf = (svc: TestService) => (svc.service.events.dispatcher as unknown as { token: string }).token;

const put = async (client: FilesClient, name: string) => {
  const answer = await client.put('docs', name, randomBytes(64));
  assert.ok(answer.status === 200 || answer.status === 201, answer.body);
};

test('two instances, one webhook: every event once, in order per channel, whichever instance wrote or delivered it', async (t) => {
  for (let round = 0; round < 12; round++) {
    // Six writes at once, three channels, both instances; a colleague now and then (the tenant's own pair).
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => put((i % 2 === 0 ? clients.first : clients.second)[i % 3]!, `f${randomInt(5)}.bin`)),
    );
    if (round % 4 === 0) {
      const made = await owner.post('/api/admins', { displayName: 'Colleague', wallet: newWallet().address, permissions: [] });
      assert.equal(made.status, 201, made.body);
    }
  }
  const wanted = await allArrived();
  // Time for a late second copy to show up, had one been sent.
  await sleep(300);
  const failed = await failedAttempts();
  const report = checkDelivered('webhook', wanted, receiver.arrivals, { bodies });
  assert.ok(
    report.duplicates <= failed,
    `no event twice but after a failed attempt (${report.duplicates} twice, ${failed} failed attempts)`,
  );
  const delivered = await Promise.all(
    [first, second].map(async (svc) =>
      counter((await request(svc.baseUrl, '/metrics')).body, 'wallet_admin_event_attempts_total', { kind: 'webhook', result: 'delivered' }),
    ),
  );
  assert.equal(delivered[0]! + delivered[1]!, wanted.length + failed, 'one delivered attempt per event, over both instances');
  t.diagnostic(
    `${wanted.length} events over ${new Set(wanted.map((e) => e.channelId)).size} pairs; delivered by the first instance ${delivered[0]}, by the second ${delivered[1]}; ${failed} failed attempts`,
  );
});

test('one instance closed mid-stream: the other goes on, nothing lost, nothing twice', async (t) => {
  receiver.delayMs = () => randomInt(10, 40);
  const writes = [];
  for (let i = 0; i < 45; i++) writes.push(put(clients.second[i % 3]!, `g${i % 7}.bin`));
  await Promise.all(writes);
  // The first instance delivers, a POST of its own is out: it closes now.
  const mine = tokenOf(first);
  await until(
    async () => (await leases()).some((l) => l.token === mine && outFor(l.channelKey)),
    10_000,
    () => 'the first instance holds a pair with a POST out',
  );
  const before = receiver.arrivals.length;
  const closing = Date.now();
  firstClosed = true;
  await first.close();
  const closedMs = Date.now() - closing;
  assert.ok(
    (await leases()).every((l) => l.token !== mine),
    'a closed instance holds no lease',
  );
  const wanted = await allArrived();
  const gap = receiver.arrivals.slice(before).find((a) => a.at > closing + closedMs);
  const failed = await failedAttempts();
  const report = checkDelivered('webhook', wanted, receiver.arrivals, { bodies });
  assert.ok(report.duplicates <= failed, `no event twice (${report.duplicates} twice, ${failed} failed attempts)`);
  t.diagnostic(
    `closed in ${closedMs} ms; the other instance's next delivery ${gap ? gap.at - closing - closedMs : '–'} ms later; ${wanted.length} events, ${report.duplicates} twice`,
  );
});

test('one instance killed mid-stream: its pairs wait out their leases, then the other takes them over; nothing lost', async (t) => {
  receiver.delayMs = () => randomInt(20, 80);
  const port = await freePort();
  const killed: ServiceProcess = spawnService({
    ...storageEnv(storage),
    ...ENV,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  });
  t.after(() => killed.stop());
  await waitUntilReady(killed, `http://127.0.0.1:${port}`);
  const survivor = tokenOf(second);

  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) {
      await put(clients.second[i % 3]!, `h${i % 5}.bin`);
      await sleep(randomInt(0, 15));
    }
  })();
  let held: { channelKey: string; token: string; until: number }[] = [];
  await until(
    async () => {
      held = (await leases()).filter((l) => l.token !== survivor && outFor(l.channelKey));
      return held.length > 0;
    },
    15_000,
    () => 'the instance in its own process holds a pair with a POST out',
  );
  killed.child.kill('SIGKILL');
  const killedAt = Date.now();
  await killed.exited;
  // Its leases as they stood when it died (it may have renewed one between the query and the kill).
  const atKill = (
    await db.query('select channel_key, lease_until from event_cursors where destination = $1 and lease_token = $2', [
      webhookId,
      held[0]!.token,
    ])
  ).rows.map((r) => ({ channelKey: r.channel_key as string, until: Number(r.lease_until) }));
  assert.ok(atKill.length > 0, 'the killed instance held pairs when it died');
  await sleep(500);
  writing = false;
  await writer;

  const wanted = await allArrived(LEASE_MS + 20_000);
  const failed = await failedAttempts();
  const report = checkDelivered('webhook', wanted, receiver.arrivals, { bodies });
  // What the killed instance had in flight may be sent again, once per pair it held; nothing more.
  assert.ok(
    report.duplicates <= atKill.length + failed,
    `sent twice: ${report.duplicates}, pairs held ${atKill.length}, failed attempts ${failed}`,
  );
  const takeovers = [];
  for (const pair of atKill) {
    const channelId = pair.channelKey === '' ? null : pair.channelKey;
    const next = receiver.arrivals.find((a) => a.at > killedAt && a.channelId === channelId);
    if (next === undefined) continue; // nothing was left of that pair to send
    // Not before the lease lapsed (the clocks are this machine's; a claim compares at the millisecond).
    assert.ok(
      next.at >= pair.until,
      `the pair ${pair.channelKey || '(tenant)'} was taken over ${pair.until - next.at} ms before its lease lapsed`,
    );
    takeovers.push(next.at - pair.until);
  }
  assert.ok(takeovers.length > 0, 'some pair the killed instance held had events left, taken over');
  t.diagnostic(
    `killed holding ${atKill.length} pairs; taken over ${takeovers.join(', ')} ms after their leases lapsed (lease ${LEASE_MS} ms); ${wanted.length} events, ${report.duplicates} sent twice`,
  );
});
