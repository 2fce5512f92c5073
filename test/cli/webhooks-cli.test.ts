import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { FilesClient } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { scryptKeystore } from '../helpers/keystores.ts';
import { noteSecret } from '../helpers/log-secrets.ts';
import { createStorage, type Storage, startTestService, storageEnv, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';
import { type Received, startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const PASSWORD = 'webhooks password';

/*
 * The webhook and events commands (docs/cli.md): an owner makes a webhook over HTTP, its endpoint (a
 * receiver on loopback) gets an upload's event, the delivery log lists it, a test event and a new
 * secret follow, and the webhook is deleted; `webhook verify` checks a delivery the receiver got (and
 * refuses one changed on the way); locally, the operator reads `events status` and the webhooks, and
 * pauses one, recorded in the tenant's chain. SQLite only: the remote commands talk HTTP, and the
 * records' engines are the events tests' concern.
 */
describe('wallet-admin webhook and events commands', () => {
  let storage: Storage;
  let svc: TestService;
  let fixture: TenantFixture;
  let receiver: WebhookReceiver;
  let files: FilesClient;
  let dir: string;
  let remoteEnv: Record<string, string>;
  let localEnv: Record<string, string>;
  let webhookId: string;
  let secret: string;
  const asOwner = ['--profile', 'owner'];
  const remote = (...args: string[]) => runCli([...args, ...asOwner], remoteEnv);
  const local = (...args: string[]) => runCli(args, localEnv);
  const ok = async (result: Promise<Awaited<ReturnType<typeof runCli>>>) => {
    const done = await result;
    assert.equal(done.code, 0, `${done.stdout}${done.stderr}`);
    return done;
  };

  /** The delivery of an event the receiver got, once the service has recorded it (after the receiver's answer). */
  async function deliveryOf(eventId: string) {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      const log = (await ok(remote('webhook', 'deliveries', webhookId, '--json'))).json();
      const found = log.items.find((d: { eventId: string }) => d.eventId === eventId);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`no delivery of ${eventId} in the log`);
  }

  const received = (type: string): Received => {
    const got = [...receiver.received].reverse().find((r) => JSON.parse(r.body).type === type);
    assert.ok(got, `the receiver got no ${type}`);
    return got;
  };
  const headerOptions = (got: Received) =>
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].flatMap((name) => ['--header', `${name}: ${got.headers[name]}`]);

  before(async () => {
    noteSecret(PASSWORD);
    receiver = await startWebhookReceiver();
    storage = await createStorage('sqlite');
    svc = await startTestService('sqlite', {
      storage,
      transport: 'socket',
      env: { OUTBOUND_ALLOW: '127.0.0.0/8', EVENTS_POLL_INTERVAL: '30', EVENTS_BACKOFF_MAX: '60' },
    });
    fixture = await createTenantFixture(svc.service.store, 'Hooks');
    files = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-webhooks-cli-'));
    const keystore = path.join(dir, 'owner.json');
    await writeFile(keystore, await scryptKeystore(fixture.ownerWallet, PASSWORD));
    await writeFile(path.join(dir, 'password.txt'), `${PASSWORD}\n`);
    // Over HTTP no DATA_DIR; locally the service's, as the operator on its machine.
    remoteEnv = { XDG_CONFIG_HOME: path.join(dir, 'config') };
    localEnv = { ...storageEnv(storage), OPERATOR_LABEL: 'ops carol' };
    await ok(
      runCli(
        [
          'profile',
          'save',
          '--name',
          'owner',
          '--url',
          svc.baseUrl,
          '--keystore',
          keystore,
          '--password-file',
          path.join(dir, 'password.txt'),
        ],
        remoteEnv,
      ),
    );
  });
  after(async () => {
    await svc?.close();
    await receiver?.close();
    await storage?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('over HTTP: create (its secret shown once), an upload delivered and logged, show, list, test', async () => {
    const created = await ok(remote('webhook', 'create', '--endpoint', receiver.url, '--type', 'upload', '--type', 'webhook.*'));
    webhookId = /^Created (whk_\w+) {2}active {2}/m.exec(created.stdout)?.[1] ?? '';
    secret = /^Secret \(shown this once; .*\): (whsec_\S+)$/m.exec(created.stdout)?.[1] ?? '';
    assert.ok(webhookId && secret, created.stdout);
    // From here on, no output may hold it: runCli fails a command that prints it.
    noteSecret(secret);

    assert.equal((await files.put('docs', 'a.txt', 'one')).status, 201);
    await receiver.waitFor((events) => events.some((e) => e.type === 'upload'));
    const upload = JSON.parse(received('upload').body);
    const delivery = await deliveryOf(upload.id);
    assert.deepEqual([delivery.status, delivery.type, delivery.httpStatus], ['delivered', 'upload', 204]);
    const logText = await ok(remote('webhook', 'deliveries', webhookId, '--status', 'delivered', '--limit', '5'));
    assert.match(
      logText.stdout,
      new RegExp(`^${delivery.id}  delivered  upload  event \\d+ \\(${upload.id}\\)  ${fixture.channel.id}  1 attempt  HTTP 204`, 'm'),
    );
    assert.equal((await remote('webhook', 'deliveries', webhookId, '--status', 'lost')).code, 2);

    const listed = (await ok(remote('webhook', 'list', '--json'))).json();
    assert.deepEqual(
      listed.items.map((w: { id: string; types: string[] }) => [w.id, w.types]),
      [[webhookId, ['upload', 'webhook.*']]],
    );
    const shown = await ok(remote('webhook', 'show', webhookId));
    assert.match(shown.stdout, new RegExp(`^Webhook ${webhookId}: active$`, 'm'));
    assert.match(shown.stdout, new RegExp(`^ {2}Endpoint: ${receiver.url.replaceAll('.', '\\.')}$`, 'm'));
    assert.match(shown.stdout, /^ {2}Last delivery: delivered \(HTTP 204\) at /m);

    const tested = await ok(remote('webhook', 'test', webhookId));
    assert.match(tested.stdout, new RegExp(`^Delivered a webhook\\.test event to ${webhookId}: HTTP 204 in \\d+ ms$`, 'm'));
    assert.equal(JSON.parse(received('webhook.test').body).data.webhookId, webhookId);

    // Checked here, naming the option, before anything is sent.
    const typo = await remote('webhook', 'update', webhookId, '--type', 'uplod');
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /^wallet-admin: --type uplod is no event type/);
    assert.equal((await remote('webhook', 'update', webhookId, '--pause', '--resume')).code, 2);
    assert.equal((await remote('webhook', 'update', webhookId)).code, 2, 'no change asked');
  });

  test('webhook verify: a delivery the receiver got verifies, a changed one does not (exit 1)', async () => {
    const got = received('upload');
    const env = { ...remoteEnv, HOOK_SECRET: secret };
    const verified = await runCli(['webhook', 'verify', '--secret-env', 'HOOK_SECRET', ...headerOptions(got), '--json'], env, {
      input: got.body,
    });
    assert.equal(verified.code, 0, verified.stderr);
    assert.deepEqual(verified.json(), { verified: true, event: JSON.parse(got.body) });
    const shown = await runCli(['webhook', 'verify', '--secret-env', 'HOOK_SECRET', ...headerOptions(got)], env, { input: got.body });
    assert.match(
      shown.stdout,
      new RegExp(`^Verified: event ${JSON.parse(got.body).id} \\(upload\\) of tenant ${fixture.tenant.id}, channel `),
    );

    // The secret from stdin, the body from a file; then the body changed by one byte.
    const bodyFile = path.join(dir, 'body.json');
    await writeFile(bodyFile, got.body);
    const fromStdin = await runCli(['webhook', 'verify', '--secret-file', '-', '--body-file', bodyFile, ...headerOptions(got)], remoteEnv, {
      input: `${secret}\n`,
    });
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    await writeFile(bodyFile, got.body.replace('a.txt', 'b.txt'));
    const tampered = await runCli(
      ['webhook', 'verify', '--secret-env', 'HOOK_SECRET', '--body-file', bodyFile, ...headerOptions(got), '--json'],
      env,
    );
    assert.equal(tampered.code, 1, tampered.stderr);
    assert.match(tampered.stderr, /^wallet-admin: The delivery does not verify: no matching signature/);
    assert.equal(tampered.json().error.code, 'FAILED');
    const both = await runCli(['webhook', 'verify', '--secret-file', '-', ...headerOptions(got)], remoteEnv, { input: got.body });
    assert.equal(both.code, 2, 'the body and the secret cannot both come from stdin');
  });

  test('locally: events status, the webhooks and their log, and a pause as the operator, in the audit chain', async () => {
    // A broker named in the settings here, which no instance has started on: shown so, nothing written.
    const status = await ok(runCli(['events', 'status', '--json'], { ...localEnv, EVENTS_NATS_URL: 'nats://127.0.0.1:4222' }));
    const [nats, hook] = status.json().destinations;
    assert.deepEqual([nats.kind, nats.key, nats.state, nats.chains], ['nats', 'EVENTS_NATS_URL', 'not started', []]);
    assert.deepEqual(
      [hook.kind, hook.key, hook.state, hook.tenantId, hook.url],
      ['webhook', webhookId, 'active', fixture.tenant.id, receiver.url],
    );
    assert.deepEqual(hook.deliveries, { retrying: 0, dead: 0 });
    const [chain] = hook.chains;
    assert.equal(chain.chain, fixture.tenant.id);
    assert.ok(chain.lowWater > 0 && chain.lowWater <= chain.head && chain.lag === chain.head - chain.lowWater, JSON.stringify(chain));
    // A broker's positions go only by the operator's word, and never while a setting here names it.
    const refused = await runCli(['events', 'forget', '--broker', 'EVENTS_NATS_URL'], {
      ...localEnv,
      EVENTS_NATS_URL: 'nats://127.0.0.1:4222',
    });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /take it out of every instance's settings first/);
    assert.equal((await ok(local('events', 'forget', '--broker', 'EVENTS_NATS_URL', '--json'))).json().forgotten, false);
    const statusText = await ok(local('events', 'status', '--tenant', fixture.tenant.id));
    assert.match(statusText.stdout, new RegExp(`^webhook  ${webhookId}  active  tenant ${fixture.tenant.id}  `, 'm'));
    assert.match(statusText.stdout, /^ {4}chain t_\w+: up to event \d+ of \d+/m);
    assert.match(statusText.stdout, /^ {4}deliveries: 0 retrying, 0 dead$/m);

    const listed = (await ok(local('webhook', 'list', '--tenant', fixture.tenant.id, '--json'))).json();
    assert.deepEqual(
      listed.items.map((w: { id: string; tenantId: string }) => [w.id, w.tenantId]),
      [[webhookId, fixture.tenant.id]],
    );
    const log = (await ok(local('webhook', 'deliveries', webhookId, '--status', 'delivered', '--json'))).json();
    assert.ok(log.items.some((d: { type: string }) => d.type === 'upload'));
    assert.equal((await local('webhook', 'create', '--endpoint', receiver.url)).code, 2, 'making one is over HTTP only');

    const paused = await ok(local('webhook', 'pause', webhookId));
    assert.match(paused.stdout, new RegExp(`^Paused webhook ${webhookId}  paused  `));
    assert.equal((await ok(remote('webhook', 'show', webhookId, '--json'))).json().state, 'paused');
    const again = await ok(local('webhook', 'pause', webhookId, '--json'));
    assert.equal(again.json().changed, false);
    await ok(local('webhook', 'resume', webhookId));

    const exported = await ok(local('audit', 'export', '--tenant', fixture.tenant.id));
    const changes = exported.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line))
      .filter((e) => e.action === 'webhook.change');
    assert.deepEqual(
      changes.map((e) => [e.adminId, e.operator, e.targetAdminId, e.change.before.paused, e.change.after.paused, e.change.after.id]),
      [
        [null, 'ops carol', fixture.owner.id, false, true, webhookId],
        [null, 'ops carol', fixture.owner.id, true, false, webhookId],
      ],
      'two entries: the pause and the resume; the pause of a paused webhook recorded nothing',
    );
  });

  test('over HTTP: a new secret signs the next delivery; delete; a policy holds a creation (exit 3)', async () => {
    const rotated = await ok(remote('webhook', 'rotate-secret', webhookId));
    const newSecret = /^New secret of webhook whk_\w+ \(shown this once\): (whsec_\S+)$/m.exec(rotated.stdout)?.[1];
    assert.ok(newSecret && newSecret !== secret, rotated.stdout);
    noteSecret(newSecret);
    assert.match(rotated.stdout, /signed with the previous secret too until \d{4}-/);

    const before = receiver.events().length;
    assert.equal((await files.put('docs', 'c.txt', 'three')).status, 201);
    await receiver.waitFor((events) => events.slice(before).some((e) => e.type === 'upload'));
    const got = received('upload');
    const verified = await runCli(
      ['webhook', 'verify', '--secret-env', 'HOOK_SECRET', ...headerOptions(got)],
      {
        ...remoteEnv,
        HOOK_SECRET: newSecret,
      },
      { input: got.body },
    );
    assert.equal(verified.code, 0, verified.stderr);

    const deleted = await ok(remote('webhook', 'delete', webhookId));
    assert.match(deleted.stdout, new RegExp(`^Deleted webhook ${webhookId} `));
    const gone = await remote('webhook', 'show', webhookId, '--json');
    assert.equal(gone.code, 1);
    assert.equal(gone.json().error.code, 'WEBHOOK_NOT_FOUND');

    // A second admin who may approve: a rule nobody could meet is refused (POLICY_UNSATISFIABLE).
    await createMemberAdmin(svc.service.store, fixture, { permissions: ['webhooks:manage', 'audit:read'] });
    await ok(remote('policy', 'set', '--rule', 'webhook.create=2:webhooks:manage'));
    const held = await remote('webhook', 'create', '--endpoint', receiver.url);
    assert.equal(held.code, 3, `${held.stdout}${held.stderr}`);
    assert.match(held.stdout, /^Held for approval: proposal prp_\w+ \(Create a webhook to /);
    assert.doesNotMatch(held.stdout, /whsec_/);
  });
});
