import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ageDecryptBuffer } from '../../src/age/age-decrypt.ts';
import { parseIdentityFile } from '../../src/age/age-keys.ts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { loadConfig } from '../../src/config/config.ts';
import { filePath } from '../../src/files/file-path.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { Channel } from '../../src/model/channels.ts';
import { decodeSegment } from '../../src/offsite/segment-format.ts';
import { AdminApi } from '../administration/admin-client.ts';
import { runCli } from '../helpers/cli.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { sample } from '../helpers/metrics-text.ts';
import { ageKeys, type OffsiteKeys, recordedState } from '../helpers/offsite.ts';
import { registerS3Key, startTestS3, type TestS3 } from '../helpers/s3-server.ts';
import { createStorage, type Storage, startTestService, storageEnv, type TestService } from '../helpers/test-service.ts';
import { newWallet, type TestWallet } from '../helpers/wallets.ts';

/**
 * A tenant's own off-site copy (issue 37, docs/offsite.md "A tenant's own copy"): two tenants on one
 * service, one with its own target on a second S3 server. That target holds that tenant only, no
 * plaintext, and rebuilds to exactly its state with the tenant's identity; the other tenant's data
 * never appears there. The key's secret is in no answer, log line or audit entry.
 */
const KEY_ID = 'TENANTKEY7Q2K';
const SECRET = 'tenant-secret-8c1f0d2e9b7a6c5d4e3f';
const DOMAIN = 'tenant-offsite.example.com';

describe("a tenant's own off-site copy", () => {
  let keys: OffsiteKeys;
  let bucket: TestS3;
  let source: Storage;
  let svc: TestService;
  let home: TenantFixture;
  let away: TenantFixture;
  let owner: AdminApi;

  before(async () => {
    registerS3Key(KEY_ID, SECRET);
    keys = await ageKeys();
    bucket = await startTestS3();
    source = await createStorage('sqlite');
    svc = await startTestService('sqlite', {
      storage: source,
      env: { AUTH_DOMAINS: DOMAIN, OUTBOUND_ALLOW: '127.0.0.0/8', OFFSITE_TENANT_INTERVAL: '3600' },
    });
    home = await createTenantFixture(svc.service.store, 'Home');
    away = await createTenantFixture(svc.service.store, 'Away');
    owner = new AdminApi(svc.baseUrl, home.ownerWallet, DOMAIN);
  });
  after(async () => {
    await svc?.close();
    await source?.drop();
    await bucket?.close();
    if (keys) await rm(keys.dir, { recursive: true, force: true });
  });

  const put = (fixture: TenantFixture, channel: Channel, folder: string, name: string, text: string) =>
    svc.service.files.files.put(
      channel,
      { adminId: fixture.owner.id },
      filePath(folder, name),
      Readable.from([Buffer.from(text)]),
      'text/plain',
    );
  const target = (prefix: string, extra: Record<string, unknown> = {}) => ({
    url: `s3://${bucket.bucket}/${prefix}`,
    endpoint: bucket.endpoint,
    forcePathStyle: true,
    accessKeyId: KEY_ID,
    secretAccessKey: SECRET,
    recipients: [keys.recipient],
    ...extra,
  });

  /** The first test's whole story, on whichever service, tenants and bucket the describe's variables hold. */
  async function oneTenantsCopy(): Promise<void> {
    await put(home, home.channel, 'docs', 'a.txt', 'home first a');
    await put(home, home.channel, 'docs', 'c.txt', 'home c, shipped then deleted');
    await put(away, away.channel, 'x', 'y.bin', 'away private bytes');
    assert.equal((await owner.send('GET', '/api/offsite')).status, 404);

    const set = await owner.send('PUT', '/api/offsite', target('home-copy'));
    assert.equal(set.status, 200, set.body);
    const view = set.json();
    assert.equal(view.url, `s3://${bucket.bucket}/home-copy`);
    assert.equal(view.accessKeyId, KEY_ID);
    assert.equal(view.status.state, 'pending');
    assert.ok(!set.body.includes(SECRET), 'the answer holds no secret');

    // The test ships what is pending: a snapshot, with every blob its rows name.
    const first = await owner.send('POST', '/api/offsite/test');
    assert.equal(first.status, 200, first.body);
    assert.equal(first.json().ok, true, first.body);

    // Changes after the snapshot: a replacement, a new file, a delete, a backup; the other tenant's too.
    await put(home, home.channel, 'docs', 'a.txt', 'home second a');
    await put(home, home.channel, 'docs', 'b.txt', 'home b');
    await svc.service.files.files.delete(home.channel, { adminId: home.owner.id }, filePath('docs', 'b.txt'));
    await svc.service.files.files.delete(home.channel, { adminId: home.owner.id }, filePath('docs', 'c.txt'));
    await svc.service.files.backups.create(home.channel, { adminId: home.owner.id }, 'api', Date.now() - 2000);
    await put(away, away.channel, 'x', 'z.bin', 'away more bytes');
    const pending = (await owner.send('GET', '/api/offsite')).json();
    assert.ok(pending.status.changesPending > 0, JSON.stringify(pending.status));
    const second = await owner.send('POST', '/api/offsite/test');
    assert.equal(second.json().ok, true, second.body);

    const shown = await owner.send('GET', '/api/offsite');
    const status = shown.json().status;
    assert.equal(status.state, 'ok', shown.body);
    assert.equal(status.changesPending, 0, shown.body);
    assert.equal(status.lagSeconds, 0);
    assert.equal(status.segment, 1, 'a snapshot, then one segment of changes');
    assert.match(status.lastCheck.result, /^ok: /);
    assert.equal(status.lastCheck.ok, true);
    assert.equal(status.lastError, null);
    assert.ok(!shown.body.includes(SECRET));

    // The bucket: the tenant's prefix only, and no plaintext of either tenant.
    const objects = await bucket.keys();
    assert.ok(objects.length >= 5, objects.join(' '));
    assert.ok(
      objects.every((key) => key.startsWith('home-copy/')),
      objects.join(' '),
    );
    for (const key of objects) {
      const text = (await readBytes(bucket, key)).toString('latin1');
      for (const plain of [
        'home first a',
        'home second a',
        'away private bytes',
        'away more bytes',
        'a.txt',
        home.tenant.name,
        away.tenant.name,
      ]) {
        if (key.endsWith('target.json')) continue;
        assert.equal(text.includes(plain), false, `${key} holds ${plain} in plaintext`);
      }
    }
    // Decrypted, every segment is the home tenant's, and names nothing of the other tenant.
    const identities = parseIdentityFile(await readFile(keys.identityFile, 'utf8'));
    const awayIds = [away.tenant.id, away.channel.id, away.owner.id];
    for (const key of objects.filter((k) => k.includes('/generations/'))) {
      const plaintext = await ageDecryptBuffer(identities, await readBytes(bucket, key));
      const segment = decodeSegment(plaintext);
      assert.equal(segment.header.tenant, home.tenant.id);
      for (const id of awayIds) assert.equal(plaintext.includes(id), false, `${key} names ${id} of the other tenant`);
    }

    // The audit chain records the target, never its secret.
    const exported = await owner.send('GET', '/api/audit/export');
    assert.equal(exported.status, 200, exported.body);
    assert.match(exported.body, /"offsite\.change"/);
    assert.ok(!exported.body.includes(SECRET), 'no audit entry holds the secret');
    assert.ok(!svc.logs.some((line) => line.includes(SECRET)), 'no log line holds the secret');

    // The home tenant's state now, to compare with the rebuild (the copy is up to date).
    const blobs = await openBlobStorage(svc.config);
    const live = await recordedState(svc.service.store, blobs);
    await blobs.close();

    // The tenant rebuilds on a service of its own, from its bucket and its identity alone.
    const destination = await createStorage('sqlite');
    try {
      const s3 = {
        OFFSITE_S3_ENDPOINT: bucket.endpoint,
        OFFSITE_S3_FORCE_PATH_STYLE: 'true',
        OFFSITE_S3_ACCESS_KEY_ID: KEY_ID,
        OFFSITE_S3_SECRET_ACCESS_KEY: SECRET,
      };
      const from = `s3://${bucket.bucket}/home-copy`;
      const refused = await runCli(
        [
          'offsite',
          'restore',
          '--from',
          from,
          '--identity',
          keys.identityFile,
          '--tenant',
          away.tenant.id,
          '--data-dir',
          destination.dataDir,
        ],
        { ...storageEnv(destination), ...s3 },
      );
      assert.notEqual(refused.code, 0, 'a tenant copy rebuilt as another tenant is refused');
      assert.match(refused.stderr + refused.stdout, new RegExp(home.tenant.id));
      const rebuilt = await runCli(
        [
          'offsite',
          'restore',
          '--from',
          from,
          '--identity',
          keys.identityFile,
          '--tenant',
          home.tenant.id,
          '--data-dir',
          destination.dataDir,
          '--json',
        ],
        { ...storageEnv(destination), ...s3 },
      );
      assert.equal(rebuilt.code, 0, rebuilt.stderr + rebuilt.stdout);

      const config = loadConfig(storageEnv(destination));
      const again = await openMetadataStore({ dataDir: config.dataDir });
      const rebuiltBlobs = await openBlobStorage({ dataDir: config.dataDir, storage: config.storage });
      try {
        const back = await recordedState(again, rebuiltBlobs);
        const homeChannels = new Set(live.tables.channels!.filter((c) => c.tenant_id === home.tenant.id).map((c) => c.id));
        const homeAdmins = new Set(live.tables.admins!.filter((a) => a.tenant_id === home.tenant.id).map((a) => a.id));
        const isHome = (table: string, row: Record<string, unknown>) =>
          table === 'tenants'
            ? row.id === home.tenant.id
            : 'tenant_id' in row
              ? row.tenant_id === home.tenant.id
              : 'channel_id' in row
                ? homeChannels.has(row.channel_id)
                : 'admin_id' in row
                  ? homeAdmins.has(row.admin_id)
                  : false;
        for (const table of [
          'tenants',
          'admins',
          'channels',
          'files',
          'file_versions',
          'backups',
          'folder_counts',
          'audit_events',
          'audit_heads',
        ]) {
          const expected = live.tables[table]!.filter((row) => isHome(table, row));
          assert.ok(expected.length > 0, `the home tenant has ${table} to compare`);
          assert.deepEqual(back.tables[table], expected, `table ${table}`);
        }
        for (const [table, rows] of Object.entries(back.tables)) {
          for (const row of rows) {
            const text = JSON.stringify(row);
            for (const id of [away.tenant.id, away.channel.id, away.owner.id])
              assert.equal(text.includes(id), false, `${table} holds ${id}`);
          }
        }
        for (const [key, hash] of Object.entries(back.blobs)) assert.equal(hash, live.blobs[key], `blob ${key}`);
        assert.ok(Object.keys(back.blobs).length >= 2);
      } finally {
        await rebuiltBlobs.close();
        await again.close();
      }
    } finally {
      await destination.drop();
    }

    // Stopping deletes nothing at the target.
    const before = await bucket.keys();
    const stopped = await owner.send('DELETE', '/api/offsite');
    assert.equal(stopped.status, 204, stopped.body);
    assert.equal((await owner.send('GET', '/api/offsite')).status, 404);
    assert.deepEqual(await bucket.keys(), before);
  }

  test('holds that tenant only, encrypted, and rebuilds to exactly its state with its identity', oneTenantsCopy);

  test("the same on PostgreSQL, with the service's own files on S3", async () => {
    const saved = { svc, home, away, owner, bucket };
    const storage = await createStorage('postgres+s3');
    try {
      bucket = await startTestS3();
      svc = await startTestService('postgres+s3', {
        storage,
        // On PostgreSQL a secret is kept only under the operator's SECRETS_KEY (without it: 503).
        env: {
          AUTH_DOMAINS: DOMAIN,
          OUTBOUND_ALLOW: '127.0.0.0/8',
          OFFSITE_TENANT_INTERVAL: '3600',
          SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
        },
      });
      home = await createTenantFixture(svc.service.store, 'Home');
      away = await createTenantFixture(svc.service.store, 'Away');
      owner = new AdminApi(svc.baseUrl, home.ownerWallet, DOMAIN);
      await oneTenantsCopy();
    } finally {
      if (svc !== saved.svc) await svc.close();
      if (bucket !== saved.bucket) await bucket.close();
      await storage.drop();
      ({ svc, home, away, owner, bucket } = saved);
    }
  });

  test("loopback, metadata and the service's own targets are refused; a member without offsite:manage is refused", async () => {
    const strict = await startTestService('sqlite', { env: { AUTH_DOMAINS: DOMAIN } });
    try {
      const fixture = await createTenantFixture(strict.service.store, 'Strict');
      const api = new AdminApi(strict.baseUrl, fixture.ownerWallet, DOMAIN);
      for (const endpoint of [
        'http://127.0.0.1:9000',
        'http://localhost:9000',
        'http://[::1]:9000',
        'http://169.254.169.254',
        'http://10.0.0.8:9000',
      ]) {
        const refused = await api.send('PUT', '/api/offsite', target('x', { endpoint }));
        assert.equal(refused.status, 400, `${endpoint}: ${refused.body}`);
        assert.equal(refused.json().code, 'OUTBOUND_ADDRESS_REFUSED', refused.body);
        assert.ok(!refused.body.includes(SECRET));
      }
      for (const [body, pattern] of [
        [target('x', { url: 'file:///tmp/x' }), /s3:\/\//],
        [target('x', { recipients: ['AGE-SECRET-KEY-1QQQ'] }), /identity/],
        [target('x', { recipients: ['age1notarecipient'] }), /recipients/],
        [target('x', { surprise: true }), /surprise|additional/i],
      ] as const) {
        const refused = await api.send('PUT', '/api/offsite', body);
        assert.equal(refused.status, 400, refused.body);
        assert.match(refused.json().detail, pattern);
      }
      assert.equal((await api.send('GET', '/api/offsite')).status, 404, 'nothing was set');
    } finally {
      await strict.close();
    }

    // On the service whose operator ships to the same bucket: that prefix is the operator's.
    const operator = await startTestService('sqlite', {
      env: {
        AUTH_DOMAINS: DOMAIN,
        OUTBOUND_ALLOW: '127.0.0.0/8',
        OFFSITE_URL: `s3://${bucket.bucket}/operator`,
        OFFSITE_RECIPIENTS: keys.recipient,
        OFFSITE_S3_ENDPOINT: bucket.endpoint,
        OFFSITE_S3_FORCE_PATH_STYLE: 'true',
        OFFSITE_S3_ACCESS_KEY_ID: 'S3RVER',
        OFFSITE_S3_SECRET_ACCESS_KEY: 'S3RVER',
      },
    });
    try {
      const fixture = await createTenantFixture(operator.service.store, 'Neighbour');
      const api = new AdminApi(operator.baseUrl, fixture.ownerWallet, DOMAIN);
      const taken = await api.send('PUT', '/api/offsite', target('operator/inside'));
      assert.equal(taken.status, 409, taken.body);
      assert.equal(taken.json().code, 'OFFSITE_TARGET_TAKEN');
      const member = newWallet();
      const made = await api.send('POST', '/api/admins', {
        displayName: 'Reader',
        wallet: member.address,
        permissions: ['files:read'],
        channels: [],
      });
      assert.equal(made.status, 201, made.body);
      const denied = await new AdminApi(operator.baseUrl, member, DOMAIN).send('PUT', '/api/offsite', target('elsewhere'));
      assert.equal(denied.status, 403, denied.body);
    } finally {
      await operator.close();
    }
  });

  test("a target that never answers holds its own tenant's copy back, not another's, nor writes", async () => {
    const held = new Set<net.Socket>();
    const blackHole = net.createServer((socket) => {
      held.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => held.delete(socket));
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const port = (blackHole.address() as net.AddressInfo).port;
    const busy = await startTestService('sqlite', {
      env: { AUTH_DOMAINS: DOMAIN, OUTBOUND_ALLOW: '127.0.0.0/8', OFFSITE_TENANT_INTERVAL: '1', OFFSITE_TENANT_TIMEOUT: '30' },
    });
    try {
      const stuck = await createTenantFixture(busy.service.store, 'Stuck');
      const fine = await createTenantFixture(busy.service.store, 'Fine');
      const stuckApi = new AdminApi(busy.baseUrl, stuck.ownerWallet, DOMAIN);
      const fineApi = new AdminApi(busy.baseUrl, fine.ownerWallet, DOMAIN);
      const hung = await stuckApi.send('PUT', '/api/offsite', target('stuck', { endpoint: `http://127.0.0.1:${port}` }));
      assert.equal(hung.status, 200, hung.body);
      // Its round is now waiting on a store that accepted the connection and says nothing (30 s).
      const waitFor = async (what: string, check: () => Promise<boolean>) => {
        for (let i = 0; i < 300; i++) {
          if (await check()) return;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.fail(`${what} within 30 s`);
      };
      await waitFor("the stuck tenant's round reaches the black hole", async () => held.size > 0);
      const set = await fineApi.send('PUT', '/api/offsite', target('fine'));
      assert.equal(set.status, 200, set.body);
      const upload = await busy.service.files.files.put(
        fine.channel,
        { adminId: fine.owner.id },
        filePath('docs', 'f.txt'),
        Readable.from([Buffer.from('fine bytes')]),
        'text/plain',
      );
      assert.ok(upload);
      await waitFor(
        "the other tenant's copy is shipped",
        async () => (await fineApi.send('GET', '/api/offsite')).json().status.state === 'ok',
      );
      const metrics = (await request(busy.baseUrl, '/metrics')).body;
      assert.equal(
        sample(metrics, 'wallet_admin_offsite_tenant_targets'),
        2,
        'the operator sees how many tenants ship a copy of their own',
      );
      const still = (await stuckApi.send('GET', '/api/offsite')).json();
      assert.equal(still.status.state, 'pending', 'the stuck round has not finished');
      assert.ok(held.size > 0, 'and is still waiting on its store');
    } finally {
      // The stop closes the round's connection instead of waiting out OFFSITE_TENANT_TIMEOUT.
      await busy.close();
      blackHole.close();
    }
  });

  test('under a 2-of-2 policy a change is a proposal that changes nothing until approved', async () => {
    const ana = newWallet();
    const made = await owner.send('POST', '/api/admins', {
      displayName: 'Ana',
      wallet: ana.address,
      permissions: ['offsite:manage', 'admins:read'],
      channels: [],
    });
    assert.equal(made.status, 201, made.body);
    const anaApi = new AdminApi(svc.baseUrl, ana, DOMAIN);
    // Whatever the test before left: no target, so that "nothing changed" can be seen.
    assert.ok([204, 404].includes((await owner.send('DELETE', '/api/offsite')).status));
    const policy = await owner.send('PUT', '/api/policies', {
      rules: [{ operation: 'offsite.change', approvals: 2, permission: 'offsite:manage' }],
    });
    assert.equal(policy.status, 200, policy.body);

    const held = await owner.send('PUT', '/api/offsite', target('held-copy'));
    assert.equal(held.status, 202, held.body);
    assert.ok(!held.body.includes(SECRET), 'the proposal shows no secret');
    const proposal = held.json();
    assert.equal(proposal.operation, 'offsite.change');
    assert.equal((await owner.send('GET', '/api/offsite')).status, 404, 'nothing changed while it waits');

    const first = await owner.send('POST', `/api/proposals/${proposal.id}/approvals`, await intentOf(home.ownerWallet, proposal.typedData));
    assert.equal(first.json().status, 'pending', first.body);
    assert.equal((await owner.send('GET', '/api/offsite')).status, 404, 'one approval of two changes nothing');
    const second = await anaApi.send('POST', `/api/proposals/${proposal.id}/approvals`, await intentOf(ana, proposal.typedData));
    assert.equal(second.status, 200, second.body);
    assert.equal(second.json().status, 'executed', second.body);
    const now = await owner.send('GET', '/api/offsite');
    assert.equal(now.status, 200, now.body);
    assert.equal(now.json().url, `s3://${bucket.bucket}/held-copy`);
    assert.ok(!second.body.includes(SECRET) && !now.body.includes(SECRET));
    const audit = await owner.send('GET', '/api/audit/export');
    assert.ok(!audit.body.includes(SECRET));
  });
});

async function intentOf(wallet: TestWallet, typedData: Record<string, any>) {
  const { EIP712Domain: _domain, ...types } = typedData.types;
  return { wallet: wallet.address, signature: await wallet.account.signTypedData({ ...typedData, types } as never) };
}

async function readBytes(bucket: TestS3, key: string): Promise<Buffer> {
  const client = new S3Client({
    endpoint: bucket.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
  });
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: bucket.bucket, Key: key }));
    return Buffer.from(await object.Body!.transformToByteArray());
  } finally {
    client.destroy();
  }
}
