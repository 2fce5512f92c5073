import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { generateIdentity } from '../../src/age/age-keys.ts';
import { AdminApi } from '../administration/admin-client.ts';
import { runCli } from '../helpers/cli.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { scryptKeystore } from '../helpers/keystores.ts';
import { noteSecret } from '../helpers/log-secrets.ts';
import { registerS3Key, startTestS3, type TestS3 } from '../helpers/s3-server.ts';
import { createStorage, type Storage, startTestService, storageEnv, type TestService } from '../helpers/test-service.ts';

const PASSWORD = 'offsite target password';
const KEY_ID = 'CLITENANTKEY4N8Q';
const SECRET = 'cli-tenant-secret-5e2b9d7c1a0f3e6d';

/*
 * `wallet-admin offsite target show|set|remove|test` (docs/cli.md): over HTTP the owner sets its
 * tenant's own target on a real S3 server (s3rver, a key of the tenant's own) and tests it, which
 * ships the copy there; a policy holds a removal (exit 3). Locally the operator reads the same view,
 * sets another target, sealed here under the service's key (the service's test then reaches it with
 * that secret), is refused what the service refuses, and removes it, each change in the tenant's
 * chain under the operator's label. The secret is in no argument and no line any run prints
 * (runCli fails a run that prints it). SQLite only: the records' engines are tenant-offsite.test.ts's.
 */
describe('wallet-admin offsite target', () => {
  let bucket: TestS3;
  let storage: Storage;
  let svc: TestService;
  let home: TenantFixture;
  let away: TenantFixture;
  let owner: AdminApi;
  let dir: string;
  let secretFile: string;
  let remoteEnv: Record<string, string>;
  let localEnv: Record<string, string>;
  const recipients = [generateIdentity(), generateIdentity()];
  const remote = (args: string[], stdin = {}) => runCli([...args, '--profile', 'owner'], remoteEnv, stdin);
  const local = (args: string[], stdin = {}) => runCli(args, localEnv, stdin);
  const ok = async (result: Promise<Awaited<ReturnType<typeof runCli>>>) => {
    const done = await result;
    assert.equal(done.code, 0, `${done.stdout}${done.stderr}`);
    return done;
  };
  const refused = async (result: Promise<Awaited<ReturnType<typeof runCli>>>, code: number, message: RegExp) => {
    const done = await result;
    assert.equal(done.code, code, `${done.stdout}${done.stderr}`);
    assert.match(done.stderr, message);
    return done;
  };
  const targetOptions = (prefix: string) => [
    '--to',
    `s3://${bucket.bucket}/${prefix}`,
    '--endpoint',
    bucket.endpoint,
    '--force-path-style',
    '--access-key-id',
    KEY_ID,
  ];
  const underPrefix = async (prefix: string) => (await bucket.keys()).filter((key) => key.startsWith(`${prefix}/`));

  before(async () => {
    noteSecret(PASSWORD);
    noteSecret(SECRET);
    registerS3Key(KEY_ID, SECRET);
    storage = await createStorage('sqlite');
    [bucket, svc] = await Promise.all([
      startTestS3(),
      startTestService('sqlite', {
        storage,
        transport: 'socket',
        // The bucket is on loopback; rounds only when a test asks for one.
        env: { OUTBOUND_ALLOW: '127.0.0.0/8', OFFSITE_TENANT_INTERVAL: '3600' },
      }),
    ]);
    home = await createTenantFixture(svc.service.store, 'Home');
    away = await createTenantFixture(svc.service.store, 'Away');
    owner = new AdminApi(svc.baseUrl, home.ownerWallet, svc.config.auth.domains[0]!);
    dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-offsite-target-cli-'));
    const keystore = path.join(dir, 'owner.json');
    secretFile = path.join(dir, 'secret.txt');
    await writeFile(keystore, await scryptKeystore(home.ownerWallet, PASSWORD));
    await writeFile(path.join(dir, 'password.txt'), `${PASSWORD}\n`);
    await writeFile(secretFile, `${SECRET}\n`);
    remoteEnv = { XDG_CONFIG_HOME: path.join(dir, 'config') };
    localEnv = { ...storageEnv(storage), OPERATOR_LABEL: 'ops dana', OUTBOUND_ALLOW: '127.0.0.0/8' };
    const passwordFile = path.join(dir, 'password.txt');
    await ok(
      runCli(
        ['profile', 'save', '--name', 'owner', '--url', svc.baseUrl, '--keystore', keystore, '--password-file', passwordFile],
        remoteEnv,
      ),
    );
  });
  after(async () => {
    await svc?.close();
    await storage?.drop();
    await bucket?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('over HTTP: refused before anything is sent, set, tested (the copy shipped), a removal held by a policy', async () => {
    const none = await remote(['offsite', 'target', 'show', '--json']);
    assert.equal(none.code, 1, none.stderr);
    assert.equal(none.json().error.code, 'OFFSITE_NOT_SET');

    // The CLI's own checks, in the options' names: no sign-in, no request (so they may run at once).
    const set = ['offsite', 'target', 'set'];
    const withSecret = ['--secret-access-key-file', secretFile];
    const [, identity] = await Promise.all([
      refused(
        remote([...set, '--to', 'file:///tmp/copy', '--access-key-id', KEY_ID, '--recipient', recipients[0]!.recipient, ...withSecret]),
        2,
        /^wallet-admin: --to must be the tenant's bucket, s3:\/\/bucket\/prefix/,
      ),
      refused(
        remote([...set, ...targetOptions('x'), '--recipient', recipients[0]!.identity, ...withSecret]),
        2,
        /^wallet-admin: --recipient holds an age identity \(AGE-SECRET-KEY-…\)/,
      ),
      refused(
        remote([...set, ...targetOptions('x'), '--recipient', recipients[0]!.recipient]),
        2,
        /^wallet-admin: Give the bucket key's secret: --secret-access-key-env NAME or --secret-access-key-file FILE/,
      ),
      refused(
        remote([...set, ...targetOptions('x'), '--recipient', recipients[0]!.recipient, '--secret-access-key', SECRET]),
        2,
        /Unknown option '--secret-access-key'/,
      ),
    ]);
    assert.ok(!identity.stderr.includes(recipients[0]!.identity), 'the identity is not echoed');

    const made = await ok(remote([...set, ...targetOptions('home-copy'), '--recipient', recipients[0]!.recipient, ...withSecret]));
    assert.match(made.stdout, new RegExp(`^Set: the service ships the tenant's copy to s3://${bucket.bucket}/home-copy `));
    assert.match(made.stdout, new RegExp(`^Off-site target of tenant ${home.tenant.id}: pending$`, 'm'));
    assert.match(made.stdout, new RegExp(`^ {2}Store: ${bucket.endpoint.replaceAll('.', '\\.')}, region us-east-1, path-style$`, 'm'));
    assert.match(made.stdout, new RegExp(`^ {2}Set by ${home.owner.id} at .* \\(revision 1\\)$`, 'm'));

    const tested = await ok(remote(['offsite', 'target', 'test', '--json']));
    assert.equal(tested.json().ok, true, tested.stdout);
    assert.match(tested.json().result, new RegExp(`^ok: reached .*${bucket.bucket}`));
    assert.ok(
      (await underPrefix('home-copy')).some((key) => key.startsWith('home-copy/generations/')),
      'the test shipped the copy',
    );

    // A policy that holds offsite.change (and so its own change: it stays for the local test, which it does not hold).
    const rule = { operation: 'offsite.change', approvals: 1, permission: 'offsite:manage' };
    assert.equal((await owner.send('PUT', '/api/policies', { rules: [rule] })).status, 200);
    const held = await remote(['offsite', 'target', 'remove']);
    assert.equal(held.code, 3, `${held.stdout}${held.stderr}`);
    assert.match(held.stdout, /^Held for approval: proposal prp_\w+ \(Stop shipping the tenant's own off-site copy to s3:/);
    assert.equal((await owner.send('GET', '/api/offsite')).status, 200, 'nothing was removed');
  });

  test('locally: the API view, a target set as the operator (the service unseals its secret), refusals, a removal', async () => {
    // The policy's changes since are pending: the lag, counted from the oldest, grows between the two reads.
    const withoutLag = ({ status: { lagSeconds: _lag, ...status }, ...view }: Record<string, any>) => ({ ...view, status });
    const api = (await owner.send('GET', '/api/offsite')).json();
    const shown = (await ok(local(['offsite', 'target', 'show', '--tenant', home.tenant.id, '--json']))).json();
    assert.deepEqual(withoutLag(shown), withoutLag(api), 'the view the API answers');
    assert.deepEqual([shown.status.state, shown.setBy, shown.revision], ['ok', home.owner.id, 1]);
    assert.equal(shown.status.lastCheck.ok, true);
    assert.match(shown.status.lastCheck.result, /^ok: /);

    // The secret from stdin, the recipients from a file; as the operator, whom the tenant's policy does not hold.
    const recipientsFile = path.join(dir, 'recipients.txt');
    await writeFile(recipientsFile, `# the auditors\n${recipients[0]!.recipient}\n${recipients[1]!.recipient} # the escrow\n`);
    const set = ['offsite', 'target', 'set', '--tenant', home.tenant.id, '--recipients-file', recipientsFile];
    const made = await ok(local([...set, ...targetOptions('operator-set'), '--secret-access-key-file', '-', '--json'], { input: SECRET }));
    const view = made.json();
    assert.deepEqual(
      [view.url, view.setBy, view.revision, view.recipients, view.accessKeyId, view.status.state],
      [`s3://${bucket.bucket}/operator-set`, 'operator:ops dana', 2, recipients.map((r) => r.recipient), KEY_ID, 'pending'],
    );
    const tested = (await owner.send('POST', '/api/offsite/test')).json();
    assert.equal(tested.ok, true, `the service reaches the bucket with the secret sealed here: ${tested.result}`);
    assert.ok((await underPrefix('operator-set')).length > 0);

    // What the service refuses, refused here too: another tenant's prefix; a secrets key not the service's. And the modes' refusals.
    const [taken, otherKey] = await Promise.all([
      local([
        'offsite',
        'target',
        'set',
        '--tenant',
        away.tenant.id,
        ...targetOptions('operator-set/inner'),
        '--recipient',
        recipients[0]!.recipient,
        '--secret-access-key-file',
        secretFile,
        '--json',
      ]),
      runCli([...set, ...targetOptions('home-elsewhere'), '--secret-access-key-env', 'OFFSITE_TENANT_SECRET_ACCESS_KEY'], {
        ...localEnv,
        SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
        OFFSITE_TENANT_SECRET_ACCESS_KEY: SECRET,
      }),
      refused(local(['offsite', 'target', 'test']), 2, /runs over HTTP only/),
      refused(remote(['offsite', 'target', 'show', '--tenant', home.tenant.id]), 2, /--tenant works locally only/),
    ]);
    assert.equal(taken.code, 1, taken.stderr);
    assert.equal(taken.json().error.code, 'OFFSITE_TARGET_TAKEN');
    assert.equal(otherKey.code, 1, otherKey.stderr);
    assert.match(otherKey.stderr, /sealed under another SECRETS_KEY \(key id \w+; here it is \w+\)/);
    assert.equal((await owner.send('GET', '/api/offsite')).json().revision, 2, 'nothing changed');

    const shipped = await bucket.keys();
    const removed = await ok(local(['offsite', 'target', 'remove', '--tenant', home.tenant.id]));
    assert.match(
      removed.stdout,
      new RegExp(
        `^Removed tenant ${home.tenant.id}'s off-site target s3://${bucket.bucket}/operator-set: .*nothing there was deleted$`,
        'm',
      ),
    );
    assert.equal((await owner.send('GET', '/api/offsite')).status, 404);
    assert.deepEqual(await bucket.keys(), shipped, 'nothing at the target was deleted');

    // Each change in the tenant's chain: the owner's set, then the operator's set and removal, never the secret.
    const exported = await owner.send('GET', '/api/audit/export');
    assert.ok(!exported.body.includes(SECRET));
    const changes = exported.body
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.action === 'offsite.change' && entry.result === 'ok');
    assert.deepEqual(
      changes.map((e) => [e.adminId, e.operator ?? null, e.targetAdminId, e.change.before?.url ?? null, e.change.after?.url ?? null]),
      [
        [home.owner.id, null, home.owner.id, null, `s3://${bucket.bucket}/home-copy`],
        [null, 'ops dana', home.owner.id, `s3://${bucket.bucket}/home-copy`, `s3://${bucket.bucket}/operator-set`],
        [null, 'ops dana', null, `s3://${bucket.bucket}/operator-set`, null],
      ],
    );
  });
});
