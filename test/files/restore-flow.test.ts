import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { assertContractHeaders, assertProblem } from '../helpers/assertions.ts';
import { request } from '../helpers/http.ts';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

for (const engine of ENGINES) {
  describe(`put → backup → change → restore → download (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let auth: Record<string, string>;
    const filePath = () => `/api/channels/${fixture.channel.id}/folders/docs/files/report.txt`;

    before(async () => {
      svc = await startTestService(engine, { env: { PUBLIC_BASE_URL: 'https://files.example.test' } });
      fixture = await createTenantFixture(svc.service.store, 'Flow');
      auth = { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) };
    });
    after(() => svc.close());

    const put = (body: string) => request(svc.baseUrl, filePath(), { method: 'PUT', headers: { ...auth, 'Content-Type': 'text/plain' }, body });
    const backup = () => request(svc.baseUrl, `/api/channels/${fixture.channel.id}/backups`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' } });

    test('a restore after two changes brings back the backup and keeps the replaced version', async () => {
      const created = await put('version one');
      assert.equal(created.status, 201, created.body);
      assert.equal(created.json().sha256, sha256('version one'));

      const b = await backup();
      assert.equal(b.status, 201, b.body);
      const { timestamp } = b.json();
      assert.match(timestamp, /^\d{8}_\d{6}$/);
      assert.deepEqual({ files: b.json().files, bytes: b.json().bytes }, { files: 1, bytes: 11 });

      assert.equal((await put('version two')).status, 200);
      assert.equal((await put('version three!')).status, 200);

      const restored = await request(svc.baseUrl, `${filePath()}/restore?backupTimestamp=${timestamp}`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: '{}',
      });
      assert.equal(restored.status, 200, restored.body);
      assert.equal(restored.headers['content-type'], 'text/plain;charset=ISO-8859-1');
      assertContractHeaders(restored);
      assert.equal(restored.body, `https://files.example.test/api/channels/${fixture.channel.id}/folders/docs/files/report.txt`);

      const download = await request(svc.baseUrl, new URL(restored.body).pathname, { headers: auth });
      assert.equal(download.status, 200);
      assert.equal(download.body, 'version one');

      const versions = await request(svc.baseUrl, `${filePath()}/versions`, { headers: auth });
      assert.equal(versions.status, 200, versions.body);
      const items = versions.json().items as { sha256: string; timestamp: string | null }[];
      const hashes = items.map((v) => v.sha256);
      for (const kept of ['version one', 'version two', 'version three!']) assert.ok(hashes.includes(sha256(kept)), `keeps ${kept}`);
      assert.equal(items.filter((v) => v.timestamp === timestamp).length, 1);
    });

    test('missing backup and missing file in a backup are told apart', async () => {
      await sleep(1100);
      const b = await backup();
      assert.equal(b.status, 201, b.body);
      const restore = (name: string, ts: string) =>
        request(svc.baseUrl, `/api/channels/${fixture.channel.id}/folders/docs/files/${name}/restore?backupTimestamp=${ts}`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' } });
      assertProblem(await restore('report.txt', '20000101_000000'), 404, 'BACKUP_NOT_FOUND');
      assertProblem(await restore('absent.txt', b.json().timestamp), 404, 'BACKUP_FILE_NOT_FOUND');
      assertProblem(await restore('report.txt', '2026-11-22'), 400, 'INVALID_TIMESTAMP');
    });
  });
}
