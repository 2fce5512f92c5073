import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { exportLine } from '../../src/audit-chain/chain-entry.ts';
import { verifyWebhook } from '../../src/client/webhook-verifier.ts';
import { AdminApi } from '../administration/admin-client.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn } from '../helpers/wallets.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const DOMAIN = 'hooks.example.com';
const FAST = {
  AUTH_DOMAINS: DOMAIN,
  OUTBOUND_ALLOW: '127.0.0.0/8',
  EVENTS_POLL_INTERVAL: '30',
  EVENTS_TIMEOUT: '1500',
  EVENTS_BACKOFF_MAX: '60',
  // PostgreSQL keeps no secret without it; SQLite would make one in DATA_DIR.
  SECRETS_KEY: '8c7f1d2e3a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f',
};

/**
 * Webhooks over the API (docs/events.md): what a tenant's chain records reaches a receiver on
 * loopback, signed as Standard Webhooks say (checked by the `standardwebhooks` package and by the
 * typed client's verifier), at least once, in order per channel, as the export shows each entry.
 */
for (const engine of ENGINES) {
  describe(`webhooks deliver the tenant's chain (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let owner: AdminApi;
    let files: FilesClient;
    let receiver: WebhookReceiver;
    let secret: string;
    let webhookId: string;

    before(async () => {
      svc = await startTestService(engine, { env: { ...FAST, EVENTS_RETRY_FOR: '600' } });
      fixture = await createTenantFixture(svc.service.store);
      owner = new AdminApi(svc.baseUrl, fixture.ownerWallet, DOMAIN);
      files = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, DOMAIN)) });
      receiver = await startWebhookReceiver();
      const made = await owner.post('/api/webhooks', { url: receiver.url });
      assert.equal(made.status, 201, made.body);
      ({ id: webhookId, secret } = made.json());
      assert.match(secret, /^whsec_/);
      assert.equal(made.json().state, 'active');
    });
    after(async () => {
      await svc?.close();
      await receiver?.close();
    });

    test('every change after its creation arrives, signed, in chain order, as the export shows it', async () => {
      assert.equal((await files.put('docs', 'a.txt', 'one')).status, 201);
      assert.equal((await files.put('docs', 'a.txt', 'two')).status, 200);
      const backup = await files.backup();
      assert.equal(backup.status, 201, backup.body);
      await nextSecond();
      assert.equal((await files.put('docs', 'a.txt', 'three')).status, 200);
      const restored = await files.restore('docs', 'a.txt', `?backupTimestamp=${backup.json().timestamp}`);
      assert.equal(restored.status, 200, restored.body);
      assert.equal((await files.delete('docs', 'a.txt')).status, 204);
      const colleague = await owner.post('/api/admins', { displayName: 'Cy', wallet: newWallet().address, permissions: ['files:read'] });
      assert.equal(colleague.status, 201, colleague.body);
      assert.equal((await owner.patch(`/api/admins/${colleague.json().id}`, { status: 'SUSPENDED' })).status, 200);

      const exported = await owner.get('/api/audit/export');
      const lines = exported.body.split('\n').filter((l) => l !== '');
      const entries = lines.map((l) => JSON.parse(l));
      const created = entries.findIndex((e) => e.action === 'webhook.create');
      const expected = entries.slice(created + 1).filter((e) => e.result === 'ok');
      await receiver.waitFor((events) => expected.every((e) => events.some((ev) => ev.id === e.hash)));
      const events = receiver.events();
      // In chain order within each channel (and the tenant's own events); channels go side by side.
      const byChannel = (list: { channel: string | undefined; id: string }[]) =>
        [...new Set(list.map((x) => x.channel))].map((c) => list.filter((x) => x.channel === c).map((x) => x.id));
      assert.deepEqual(
        byChannel(events.map((e) => ({ channel: e.channelId, id: e.id }))).sort(),
        byChannel(expected.map((e) => ({ channel: e.channelId ?? undefined, id: e.hash }))).sort(),
      );
      assert.equal(events.length, expected.length);
      for (const event of events) {
        const entry = expected.find((e) => e.hash === event.id);
        assert.equal(event.id, entry.hash);
        assert.equal(event.tenantId, fixture.tenant.id);
        assert.equal(event.channelId, entry.channelId ?? undefined);
        assert.equal(event.time, new Date(entry.createdAt).toISOString());
        // `data` is the export's line, byte for byte once canonical.
        assert.equal(exportLine(event.data as never), `${lines[created + 1 + entries.slice(created + 1).indexOf(entry)]}\n`);
      }
      const types = new Set(events.map((e) => e.type));
      for (const type of ['upload', 'backup', 'restore', 'delete', 'admin.create', 'admin.update']) assert.ok(types.has(type), type);
      // An upload says whether it replaced a file: the version the replaced bytes became.
      const uploads = events.filter((e) => e.type === 'upload');
      assert.equal(uploads[0]!.data.versionId, null);
      assert.match(String(uploads[1]!.data.versionId), /^ver_/);

      for (const got of receiver.received) {
        // The reference library, and ours (WebCrypto), accept every delivery.
        assert.deepEqual(new Webhook(secret).verify(got.body, got.headers), JSON.parse(got.body));
        assert.deepEqual(await verifyWebhook(secret, got.headers, got.body), JSON.parse(got.body));
        assert.equal(got.headers['webhook-id'], JSON.parse(got.body).id);
        assert.equal(got.headers['content-type'], 'application/json');
      }
      const log = await owner.get(`/api/webhooks/${webhookId}/deliveries?limit=1000`);
      assert.equal(log.status, 200, log.body);
      assert.ok(log.json().items.length >= expected.length);
      assert.ok(log.json().items.every((d: { status: string }) => d.status === 'delivered'));
      const shown = (await owner.get(`/api/webhooks/${webhookId}`)).json();
      assert.equal(shown.lastDelivery.status, 'delivered');
      assert.ok(shown.lowWaterSeq <= shown.headSeq);
    });

    test('a receiver that answers 500 for a while gets every event after it recovers, in order', async () => {
      let failures = 0;
      receiver.answer = () => (failures++ < 4 ? 500 : 204);
      const before = receiver.events().length;
      for (const name of ['b1', 'b2', 'b3']) assert.equal((await files.put('docs', `${name}.txt`, name)).status, 201);
      await receiver.waitFor((events) => events.length >= before + 3);
      const later = receiver.events().slice(before);
      assert.deepEqual(
        later.map((e) => (e.data as { filename: string }).filename),
        ['b1.txt', 'b2.txt', 'b3.txt'],
      );
      assert.ok(failures >= 5);
      const retried = (await owner.get(`/api/webhooks/${webhookId}/deliveries?limit=3`)).json().items;
      assert.ok(
        retried.some((d: { attempts: number }) => d.attempts > 1),
        JSON.stringify(retried),
      );
      receiver.answer = () => 204;
    });

    test('a hanging receiver delays no other webhook', async () => {
      const hanging = await startWebhookReceiver();
      hanging.answer = () => 'hang';
      try {
        const slow = await owner.post('/api/webhooks', { url: hanging.url });
        assert.equal(slow.status, 201);
        const before = receiver.events().length;
        const started = Date.now();
        assert.equal((await files.put('docs', 'c.txt', 'c')).status, 201);
        await receiver.waitFor((events) => events.length > before, 1200);
        assert.ok(Date.now() - started < 1200);
        assert.equal((await owner.delete(`/api/webhooks/${slow.json().id}`)).status, 204);
      } finally {
        await hanging.close();
      }
    });

    test('a rotated secret signs beside the old one; the answer never shows a secret again', async () => {
      const rotated = await owner.post(`/api/webhooks/${webhookId}/rotate-secret`);
      assert.equal(rotated.status, 200, rotated.body);
      const fresh = rotated.json().secret as string;
      assert.notEqual(fresh, secret);
      const before = receiver.received.length;
      assert.equal((await files.put('docs', 'd.txt', 'd')).status, 201);
      // A delivery already out when the secret changed is signed as before; d.txt's comes after.
      const ofD = () => receiver.received.slice(before).find((r) => JSON.parse(r.body).data.filename === 'd.txt');
      await receiver.waitFor(() => ofD() !== undefined);
      const got = ofD()!;
      assert.equal(got.headers['webhook-signature']!.split(' ').length, 2);
      new Webhook(fresh).verify(got.body, got.headers);
      new Webhook(secret).verify(got.body, got.headers);
      const shown = await owner.get(`/api/webhooks/${webhookId}`);
      assert.ok(!shown.body.includes(fresh) && !shown.body.includes(secret));
      const audit = await owner.get('/api/audit/export');
      assert.ok(!audit.body.includes(fresh.slice(6)) && !audit.body.includes(secret.slice(6)));
      secret = fresh;
    });

    test('the test button posts a signed webhook.test and answers what the receiver said', async () => {
      const answered = await owner.post(`/api/webhooks/${webhookId}/test`);
      assert.equal(answered.status, 200, answered.body);
      assert.equal(answered.json().delivered, true);
      assert.equal(answered.json().status, 204);
      const got = receiver.received[receiver.received.length - 1]!;
      assert.equal(JSON.parse(got.body).type, 'webhook.test');
      new Webhook(secret).verify(got.body, got.headers);
    });

    test('URLs the service must not reach are refused when set, with what is wrong', async () => {
      const bare = await startTestService(engine, { env: { AUTH_DOMAINS: DOMAIN, SECRETS_KEY: FAST.SECRETS_KEY } });
      try {
        const fx = await createTenantFixture(bare.service.store);
        const api = new AdminApi(bare.baseUrl, fx.ownerWallet, DOMAIN);
        for (const url of [
          'http://127.0.0.1:9/hook',
          'https://127.0.0.1/hook',
          'https://[::1]/hook',
          'https://2130706433/hook',
          'https://0x7f.1/hook',
          'https://169.254.169.254/latest/meta-data',
          'https://10.1.2.3/hook',
          'https://[::ffff:127.0.0.1]/',
          'https://localhost/hook',
          'http://example.com/hook',
          'ftp://example.com/hook',
        ]) {
          const refused = await api.post('/api/webhooks', { url });
          await assertProblem(refused, 400, 'OUTBOUND_ADDRESS_REFUSED');
        }
        // The secrets are no hex (the problem's request id is: a token "abc" was once found in it).
        const withCredentials = await api.post('/api/webhooks', { url: 'https://user:hunter2@10.0.0.1/x?token=query-secret' });
        await assertProblem(withCredentials, 400, 'OUTBOUND_ADDRESS_REFUSED');
        assert.ok(!withCredentials.body.includes('hunter2') && !withCredentials.body.includes('query-secret'), withCredentials.body);
        const unknown = await api.post('/api/webhooks', { url: 'https://example.com/', types: ['uplaod'] });
        await assertProblem(unknown, 400, 'VALIDATION_FAILED');
        const extra = await api.post('/api/webhooks', { url: 'https://example.com/', colour: 'red' });
        await assertProblem(extra, 400, 'VALIDATION_FAILED');
      } finally {
        await bare.close();
      }
    });

    test('a redirect is a failed delivery, never followed', async () => {
      const target = await startWebhookReceiver();
      const redirecting = await startWebhookReceiver();
      redirecting.answer = () => 302;
      try {
        const made = await owner.post('/api/webhooks', { url: redirecting.url, types: ['upload'] });
        assert.equal(made.status, 201);
        const tested = await owner.post(`/api/webhooks/${made.json().id}/test`);
        assert.equal(tested.json().delivered, false);
        assert.equal(tested.json().status, 302);
        assert.equal(target.received.length, 0);
        assert.equal((await owner.delete(`/api/webhooks/${made.json().id}`)).status, 204);
      } finally {
        await target.close();
        await redirecting.close();
      }
    });

    test('webhook changes are audited with the URL redacted, never the secret', async () => {
      const made = await owner.post('/api/webhooks', { url: `${receiver.url}?token=s3cr3t-value`, types: ['backup.*'] });
      assert.equal(made.status, 201, made.body);
      assert.equal(made.json().url, `${receiver.url}?token=***`);
      const paused = await owner.patch(`/api/webhooks/${made.json().id}`, { paused: true });
      assert.equal(paused.status, 200, paused.body);
      assert.equal(paused.json().state, 'paused');
      assert.equal((await owner.delete(`/api/webhooks/${made.json().id}`)).status, 204);
      await assertProblem(await owner.get(`/api/webhooks/${made.json().id}`), 404, 'WEBHOOK_NOT_FOUND');
      const audit = await owner.get('/api/audit?action=webhook.change');
      assert.equal(audit.status, 200, audit.body);
      const exported = (await owner.get('/api/audit/export')).body;
      assert.ok(!exported.includes('s3cr3t-value'));
      assert.ok(!exported.includes(made.json().secret.slice(6)));
      for (const action of ['webhook.create', 'webhook.change', 'webhook.delete'])
        assert.ok(exported.includes(`"action":"${action}"`), action);
    });
  });
}

for (const engine of ENGINES) {
  describe(`a webhook's reach and its guard (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let owner: AdminApi;
    let receiver: WebhookReceiver;

    before(async () => {
      svc = await startTestService(engine, { env: { ...FAST, EVENTS_RETRY_FOR: '600' } });
      fixture = await createTenantFixture(svc.service.store);
      owner = new AdminApi(svc.baseUrl, fixture.ownerWallet, DOMAIN);
      receiver = await startWebhookReceiver();
    });
    after(async () => {
      await svc?.close();
      await receiver?.close();
    });

    test("a sub-admin's webhook carries what that admin may read, and nothing while it is suspended", async () => {
      const other = await svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: 'other' });
      await svc.service.store.linkChannel(other.id, fixture.owner.id);
      const member = await createMemberAdmin(svc.service.store, fixture, {
        permissions: ['webhooks:manage', 'audit:read', 'files:write'],
        channels: [fixture.channel],
      });
      const api = new AdminApi(svc.baseUrl, member.wallet, DOMAIN);
      const made = await api.post('/api/webhooks', { url: receiver.url, types: ['upload'] });
      assert.equal(made.status, 201, made.body);
      const put = async (channelId: string, name: string) =>
        new FilesClient(svc.baseUrl, channelId, { ...(await signIn(fixture.ownerWallet, DOMAIN)) }).put('docs', name, name);
      assert.equal((await put(other.id, 'hidden.txt')).status, 201);
      assert.equal((await put(fixture.channel.id, 'seen.txt')).status, 201);
      await receiver.waitFor((events) => events.some((e) => e.data.filename === 'seen.txt'));
      // Everything before seen.txt in the chain has been looked at: hidden.txt was left out, not delayed.
      assert.ok(!receiver.events().some((e) => e.data.filename === 'hidden.txt'));
      // Only the owner sees every webhook; the member its own.
      assert.equal((await owner.get('/api/webhooks')).json().items.length, 1);
      assert.equal((await api.get('/api/webhooks')).json().items.length, 1);

      assert.equal((await owner.patch(`/api/admins/${member.admin.id}`, { status: 'SUSPENDED' })).status, 200);
      const stopped = (await owner.get(`/api/webhooks/${made.json().id}`)).json();
      assert.equal(stopped.state, 'stopped');
      assert.match(stopped.stoppedReason, /suspended/);
      assert.equal((await put(fixture.channel.id, 'while-suspended.txt')).status, 201);
      await new Promise((resolve) => setTimeout(resolve, 400));
      assert.ok(!receiver.events().some((e) => e.data.filename === 'while-suspended.txt'));
      assert.equal((await owner.patch(`/api/admins/${member.admin.id}`, { status: 'ACTIVE' })).status, 200);
      // It goes on from where it stood: the event made meanwhile arrives.
      await receiver.waitFor((events) => events.some((e) => e.data.filename === 'while-suspended.txt'));
    });

    test('a tenant has at most 20 webhooks; the 21st is refused and nothing is made', async () => {
      const before = (await owner.get('/api/webhooks?limit=100')).json().items.length as number;
      const made: string[] = [];
      for (let i = before; i < 20; i++) {
        const hook = await owner.post('/api/webhooks', { url: `${receiver.url}?n=${i}`, types: ['backup.lock'] });
        assert.equal(hook.status, 201, hook.body);
        made.push(hook.json().id);
      }
      await assertProblem(await owner.post('/api/webhooks', { url: receiver.url }), 409, 'WEBHOOK_LIMIT_REACHED');
      assert.equal((await owner.get('/api/webhooks?limit=100')).json().items.length, 20);
      for (const id of made) assert.equal((await owner.delete(`/api/webhooks/${id}`)).status, 204);
    });

    test('a held webhook.delete under a 2-of-2 policy changes nothing until both approve', async () => {
      const made = await owner.post('/api/webhooks', { url: receiver.url, types: ['backup'] });
      assert.equal(made.status, 201, made.body);
      const id = made.json().id as string;
      const colleagueWallet = newWallet();
      const colleague = await owner.post('/api/admins', {
        displayName: 'Second owner',
        wallet: colleagueWallet.address,
        permissions: [],
        owner: true,
      });
      assert.equal(colleague.status, 201, colleague.body);
      const rules = [{ operation: 'webhook.delete', approvals: 2, permission: 'webhooks:manage' }];
      assert.equal((await owner.send('PUT', '/api/policies', { rules })).status, 200);

      const held = await owner.delete(`/api/webhooks/${id}`);
      assert.equal(held.status, 202, held.body);
      const proposal = held.json();
      assert.equal(proposal.operation, 'webhook.delete');
      // Nothing changed: the webhook is there and still delivers.
      assert.equal((await owner.get(`/api/webhooks/${id}`)).status, 200);
      const files = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, DOMAIN)) });
      assert.equal((await files.backup()).status, 201);
      await receiver.waitFor((events) => events.some((e) => e.type === 'backup'));

      const first = await owner.post(`/api/proposals/${proposal.id}/approvals`, await intentOf(fixture.ownerWallet, proposal.typedData));
      assert.equal(first.json().status, 'pending', first.body);
      assert.equal((await owner.get(`/api/webhooks/${id}`)).status, 200);
      const second = await new AdminApi(svc.baseUrl, colleagueWallet, DOMAIN).post(
        `/api/proposals/${proposal.id}/approvals`,
        await intentOf(colleagueWallet, proposal.typedData),
      );
      assert.equal(second.json().status, 'executed', second.body);
      await assertProblem(await owner.get(`/api/webhooks/${id}`), 404, 'WEBHOOK_NOT_FOUND');
    });
  });
}

async function intentOf(wallet: ReturnType<typeof newWallet>, typedData: Record<string, any>) {
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return { wallet: wallet.address, signature: await wallet.account.signTypedData({ ...typedData, types } as never) };
}
