import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestS3, type TestS3 } from '../helpers/s3-server.ts';
import { type ServiceProcess, spawnService, waitUntilReady } from '../helpers/service-process.ts';
import { createStorage, freePort, type Storage } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const DOMAIN = 'admin.example.test';

describe('two service processes, one PostgreSQL database, one bucket', () => {
  let storage: Storage;
  let s3: TestS3;
  let fixture: TenantFixture;
  const instances: { process: ServiceProcess; baseUrl: string }[] = [];

  before(async () => {
    storage = await createStorage('postgres');
    s3 = await startTestS3();
    const store = await openMetadataStore({ dataDir: storage.dataDir, databaseUrl: storage.databaseUrl });
    fixture = await createTenantFixture(store, 'Scale');
    await store.close();
    // Started together: the migrations must run once (a PostgreSQL advisory lock), not collide.
    // Each with a DATA_DIR of its own, as on two hosts: only the database can serialise them.
    await Promise.all(
      [0, 1].map(async () => {
        const port = await freePort();
        const dataDir = await mkdtemp(path.join(storage.dataDir, 'instance-'));
        const baseUrl = `http://127.0.0.1:${port}`;
        const env = {
          ...s3.env,
          DATABASE_URL: storage.databaseUrl!,
          DATA_DIR: dataDir,
          PORT: String(port),
          LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
          AUTH_DOMAINS: DOMAIN,
        };
        const served = spawnService(env);
        instances.push({ process: served, baseUrl });
        await waitUntilReady(served, baseUrl);
      }),
    );
  });
  after(async () => {
    for (const { process } of instances) process.child.kill('SIGTERM');
    await Promise.all(instances.map(({ process }) => process.exited));
    await s3.close();
    await storage.drop();
  });

  test('restores of one file through both are serialised; backups on one restore on the other; a logout on one holds on the other', async (t) => {
    const auth = { ...(await signIn(fixture.ownerWallet, DOMAIN)) };
    const [a, b] = instances.map(({ baseUrl }) => new FilesClient(baseUrl, fixture.channel.id, auth)) as [FilesClient, FilesClient];

    const contents = ['one '.repeat(100_000), 'two '.repeat(120_000)];
    const timestamps: string[] = [];
    for (const [i, text] of contents.entries()) {
      assert.ok([200, 201].includes((await (i ? b : a).put('d', 'f.txt', text)).status));
      await nextSecond();
      const backup = await a.backup();
      assert.equal(backup.status, 201, backup.body);
      timestamps.push(backup.json().timestamp);
    }
    await b.put('d', 'f.txt', 'current');

    // Same second on both: one backup wins, the other is told so (409), nothing half-made.
    await nextSecond();
    const [first, second] = await Promise.all([a.backup(), b.backup()]);
    const conflicts = [first, second].filter((r) => r.status === 409).length;
    assert.deepEqual([first.status, second.status].sort(), conflicts ? [201, 409] : [201, 201]);

    const restores = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? b : a).restore('d', 'f.txt', `?backupTimestamp=${timestamps[i % 2]}`)),
    );
    for (const r of restores) assert.equal(r.status, 200, r.body);
    const live = (await a.get('d', 'f.txt')).body;
    assert.ok(contents.includes(live));
    assert.equal((await b.get('d', 'f.txt')).body, live);
    const versions = (await a.versions('d', 'f.txt', '?limit=1000')).json().items as { kind: string; sha256: string }[];
    const kept = versions.filter((v) => v.kind === 'replaced');
    // Serialised: every restore that changed the file kept exactly what it replaced, so consecutive kept versions differ.
    // The two oldest kept versions are the uploads'; the rest are the restores', oldest first.
    const restoreKept = kept.slice(0, kept.length - 2).reverse();
    assert.equal(restoreKept[0]!.sha256, sha256('current'));
    for (let i = 1; i < restoreKept.length; i++) {
      assert.notEqual(restoreKept[i]!.sha256, restoreKept[i - 1]!.sha256);
      assert.ok(contents.map(sha256).includes(restoreKept[i]!.sha256));
    }
    assert.ok(restoreKept.length >= 1 && restoreKept.length <= 20);

    const logout = await request(instances[0]!.baseUrl, '/api/auth/logout', { method: 'POST', headers: auth });
    assert.equal(logout.status, 204);
    const loggedOutAt = Date.now();
    let refusedAfterMs = -1;
    while (Date.now() - loggedOutAt < 10_000) {
      const answer = await request(instances[1]!.baseUrl, '/api/auth/test', { headers: auth });
      if (answer.status === 401) {
        refusedAfterMs = Date.now() - loggedOutAt;
        assert.equal(answer.json().code, 'AUTH_MESSAGE_REVOKED');
        break;
      }
      await sleep(50);
    }
    assert.ok(refusedAfterMs >= 0 && refusedAfterMs <= 5000, `the other instance refused the revoked message after ${refusedAfterMs} ms`);
    t.diagnostic(
      `20 restores through 2 instances: ${restoreKept.length} changed the file; same-second backups: ${conflicts} conflict(s); revocation reached the other instance after ${refusedAfterMs} ms`,
    );
  });
});
