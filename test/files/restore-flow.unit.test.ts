import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertContractHeaders, assertProblem, CONTRACT_HEADERS } from '../helpers/assertions.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

for (const setup of FILE_SETUPS) {
  describe(`restore, as the contract says (${setup})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let client: FilesClient;
    let domain: string;

    before(async () => {
      svc = await startTestService(setup, { env: { PUBLIC_BASE_URL: 'https://files.example.test' } });
      domain = svc.config.auth.domains[0]!;
      fixture = await createTenantFixture(svc.service.store, 'Flow');
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, domain)) });
    });
    after(() => svc.close());

    test('a restore after two changes brings back the backup and keeps the replaced version', async () => {
      const created = await client.put('docs', 'report.txt', 'version one', 'text/plain');
      assert.equal(created.status, 201, created.body);
      assert.equal(created.json().sha256, sha256('version one'));

      const backup = await client.backup();
      assert.equal(backup.status, 201, backup.body);
      const { timestamp } = backup.json();
      assert.match(timestamp, /^\d{8}_\d{6}$/);
      assert.deepEqual({ files: backup.json().files, bytes: backup.json().bytes }, { files: 1, bytes: 11 });

      assert.equal((await client.put('docs', 'report.txt', 'version two')).status, 200);
      assert.equal((await client.put('docs', 'report.txt', 'version three!')).status, 200);

      const restored = await client.restore('docs', 'report.txt', `?backupTimestamp=${timestamp}`, '{}');
      assert.equal(restored.status, 200, restored.body);
      assert.equal(restored.headers['content-type'], 'text/plain;charset=ISO-8859-1');
      assertContractHeaders(restored);
      assert.equal(restored.body, `https://files.example.test/api/channels/${fixture.channel.id}/folders/docs/files/report.txt`);

      const download = await request(svc.baseUrl, new URL(restored.body).pathname, { headers: client.auth });
      assert.equal(download.status, 200);
      assert.equal(download.body, 'version one');

      const versions = await client.versions('docs', 'report.txt');
      assert.equal(versions.status, 200, versions.body);
      const items = versions.json().items as { id: string; sha256: string; timestamp: string | null; kind: string }[];
      assert.equal(versions.json().next, null);
      // The two replaced by uploads, the one replaced by the restore, and the backup's.
      assert.deepEqual(
        items.map((v) => v.sha256).sort(),
        [sha256('version one'), sha256('version one'), sha256('version two'), sha256('version three!')].sort(),
      );
      assert.equal(items[0]!.sha256, sha256('version three!'), 'newest first: what the restore replaced');
      assert.equal(restored.headers['x-kept-version-id'], items[0]!.id, 'the header names the version the restore kept');
      assert.deepEqual(
        items.filter((v) => v.timestamp !== null).map((v) => [v.kind, v.timestamp]),
        [['backup', timestamp]],
      );
    });

    test('the restore can be undone with the version it kept', async () => {
      const before = await client.versions('docs', 'report.txt');
      const replaced = before.json().items[0];
      const undo = await client.restore('docs', 'report.txt', `?versionId=${replaced.id}`);
      assert.equal(undo.status, 200, undo.body);
      assert.equal((await client.get('docs', 'report.txt')).body, 'version three!');
    });

    test('without backupTimestamp the newest backup holding the file is used; identical bytes change nothing', async () => {
      await nextSecond();
      assert.equal((await client.put('docs', 'report.txt', 'in the second backup')).status, 200);
      const second = await client.backup();
      assert.equal(second.status, 201, second.body);
      assert.equal((await client.put('docs', 'report.txt', 'later change')).status, 200);

      const restored = await client.restore('docs', 'report.txt', '');
      assert.equal(restored.status, 200, restored.body);
      assert.equal((await client.get('docs', 'report.txt')).body, 'in the second backup');

      const countBefore = (await client.versions('docs', 'report.txt')).json().items.length;
      const again = await client.restore('docs', 'report.txt', `?backupTimestamp=${second.json().timestamp}`);
      assert.equal(again.status, 200, again.body);
      assert.equal((await client.versions('docs', 'report.txt')).json().items.length, countBefore, 'no version kept for a no-op');
    });

    test('X-Kept-Version-Id names the kept version when the restore replaced bytes, and is absent otherwise', async () => {
      assert.equal((await client.put('undo', 'plan.txt', 'original')).status, 201);
      await nextSecond();
      const backup = (await client.backup()).json().timestamp;
      assert.equal((await client.put('undo', 'plan.txt', 'edited')).status, 200);

      const restored = await client.restore('undo', 'plan.txt', `?backupTimestamp=${backup}`);
      assert.equal(restored.status, 200, restored.body);
      const kept = restored.headers['x-kept-version-id'];
      assert.match(String(kept), /^ver_[0-9a-z]+$/);
      const keptVersion = (await client.versions('undo', 'plan.txt')).json().items.find((v: { id: string }) => v.id === kept);
      assert.deepEqual([keptVersion?.kind, keptVersion?.sha256], ['replaced', sha256('edited')]);

      // The undo: restoring the kept version brings the edit back, and keeps what it replaced in turn.
      const undo = await client.restore('undo', 'plan.txt', `?versionId=${kept}`);
      assert.equal(undo.status, 200, undo.body);
      assert.equal((await client.get('undo', 'plan.txt')).body, 'edited');
      assert.match(String(undo.headers['x-kept-version-id']), /^ver_/);
      assert.notEqual(undo.headers['x-kept-version-id'], kept);

      // The same bytes again: nothing replaced, no header.
      const noop = await client.restore('undo', 'plan.txt', `?versionId=${kept}`);
      assert.equal(noop.status, 200, noop.body);
      assert.equal(noop.headers['x-kept-version-id'], undefined);
      assertContractHeaders(noop);

      // A deleted file comes back from its version: there was no live file to keep.
      assert.equal((await client.delete('undo', 'plan.txt')).status, 204);
      const deleted = (await client.versions('undo', 'plan.txt')).json().items[0];
      assert.equal(deleted.kind, 'deleted');
      const revived = await client.restore('undo', 'plan.txt', `?versionId=${deleted.id}`);
      assert.equal(revived.status, 200, revived.body);
      assert.equal(revived.headers['x-kept-version-id'], undefined);
      assert.equal((await client.get('undo', 'plan.txt')).body, 'edited');
    });

    test('a page of another origin may read X-Kept-Version-Id once CORS_EXTRA_EXPOSE_HEADERS names it (the contract does not); the OpenAPI document describes it', async (t) => {
      const contract = String(CONTRACT_HEADERS['access-control-expose-headers']).split(', ');
      assert.ok(!contract.includes('X-Kept-Version-Id'), "the contract's list, by default");
      const opened = await startTestService(setup, { env: { CORS_EXTRA_EXPOSE_HEADERS: 'X-Kept-Version-Id' } });
      t.after(() => opened.close());
      const exposed = String((await request(opened.baseUrl, '/healthz')).headers['access-control-expose-headers']).split(', ');
      assert.ok(exposed.includes('X-Kept-Version-Id'), exposed.join());
      assert.ok(exposed.includes('Access-Control-Allow-Origin') && exposed.includes('Access-Control-Allow-Credentials'), 'the others stay');
      const openapi = (await request(svc.baseUrl, '/api/openapi.json')).json();
      const restore = openapi.paths['/api/channels/{channelRef}/folders/{folderName}/files/{filename}/restore'].post;
      assert.match(restore.description, /X-Kept-Version-Id/);
      assert.equal(
        restore.responses['200'].headers?.['X-Kept-Version-Id']?.schema?.type,
        'string',
        JSON.stringify(restore.responses['200']),
      );
    });

    test('channelRef may be the channel name; the URL names the channel by id', async () => {
      const byName = new FilesClient(svc.baseUrl, fixture.channel.name, client.auth);
      const restored = await byName.restore('docs', 'report.txt', '');
      assert.equal(restored.status, 200, restored.body);
      assert.ok(restored.body.includes(`/api/channels/${fixture.channel.id}/`));
    });

    test('names outside ASCII come back percent-encoded and the URL works', async () => {
      const folder = 'Études 2026';
      const filename = 'résumé #1 ?.txt';
      assert.equal((await client.put(folder, filename, 'café')).status, 201);
      await nextSecond();
      assert.equal((await client.backup()).status, 201);
      assert.equal((await client.put(folder, filename, 'changed')).status, 200);
      const restored = await client.restore(folder, filename, '');
      assert.equal(restored.status, 200, restored.body);
      assert.match(restored.body, /^[\x21-\x7e]+$/, 'ASCII only');
      const download = await request(svc.baseUrl, restored.body.slice('https://files.example.test'.length), { headers: client.auth });
      assert.equal(download.status, 200, download.body);
      assert.equal(download.body, 'café');
    });

    test('errors say what was wrong, in the one format', async () => {
      assertProblem(await client.restore('docs', 'report.txt', '?backupTimestamp=20000101_000000'), 404, 'BACKUP_NOT_FOUND');
      const latest = (await client.backups()).json().items[0].timestamp;
      assertProblem(await client.restore('docs', 'absent.txt', `?backupTimestamp=${latest}`), 404, 'BACKUP_FILE_NOT_FOUND');
      assertProblem(await client.restore('docs', 'absent.txt', ''), 404, 'BACKUP_FILE_NOT_FOUND');
      for (const bad of ['2026-11-22', '20261340_000000', '20261122_250000', '20261122_0000', 'x'.repeat(300)]) {
        assertProblem(await client.restore('docs', 'report.txt', `?backupTimestamp=${encodeURIComponent(bad)}`), 400, 'INVALID_TIMESTAMP');
      }
      assertProblem(await client.restore('docs', 'report.txt', '?versionId=ver_nope'), 404, 'VERSION_NOT_FOUND');
      assertProblem(await client.restore('docs', 'report.txt', '', '[1]'), 400, 'VALIDATION_FAILED');
      assertProblem(await client.restore('docs', 'report.txt', '', '{bad json'), 400, 'VALIDATION_FAILED');
    });

    test('missing, foreign and unlinked channels answer the same 404; a missing permission 403', async () => {
      const other = await createTenantFixture(svc.service.store, 'Other');
      const unlinked = await svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: 'unlinked' });
      for (const ref of ['chn_00000000000000000000000000', other.channel.id, unlinked.id, 'no-such-name']) {
        const response = await new FilesClient(svc.baseUrl, ref, client.auth).restore('docs', 'report.txt', '');
        assertProblem(response, 404, 'CHANNEL_NOT_FOUND');
        assert.ok(!response.body.includes(other.channel.name) || ref === 'no-such-name');
      }
      const reader = await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:read'], channels: [fixture.channel] });
      const readerClient = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(reader.wallet, domain)) });
      assertProblem(await readerClient.restore('docs', 'report.txt', ''), 403, 'PERMISSION_DENIED');
      const restorer = await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:restore'], channels: [fixture.channel] });
      const restorerClient = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(restorer.wallet, domain)) });
      assert.equal((await restorerClient.restore('docs', 'report.txt', '')).status, 200);
    });

    test('without wallet headers the restore is refused with 401', async () => {
      const anonymous = new FilesClient(svc.baseUrl, fixture.channel.id, {});
      assertProblem(await anonymous.restore('docs', 'report.txt', ''), 401, 'AUTH_HEADERS_MISSING');
    });
  });
}
