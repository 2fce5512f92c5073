import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Channel } from '../../src/model/channels.ts';
import { assertContractHeaders, assertProblem } from '../helpers/assertions.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, nextSecond, sha256, storedBytes } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { S3RVER_LONGEST_SEGMENT_BYTES } from '../helpers/s3-server.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const MAX_FILE_BYTES = 64 * 1024;

for (const setup of FILE_SETUPS) {
  describe(`file endpoints (${setup})`, () => {
    let storage: Storage;
    let svc: TestService;
    let fixture: TenantFixture;
    let client: FilesClient;
    let domain: string;
    let audited: Channel;

    before(async () => {
      storage = await createStorage(setup);
      svc = await startTestService(setup, { storage, env: { MAX_FILE_BYTES: String(MAX_FILE_BYTES) } });
      domain = svc.config.auth.domains[0]!;
      fixture = await createTenantFixture(svc.service.store, 'Files');
      audited = await svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: 'audited' });
      await svc.service.store.linkChannel(audited.id, fixture.owner.id);
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, domain)) });
    });
    after(async () => {
      await svc.close();
      await storage.drop();
    });

    const memberClient = async (permissions: string[]) => {
      const member = await createMemberAdmin(svc.service.store, fixture, { permissions, channels: [fixture.channel] });
      return new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(member.wallet, domain)) });
    };

    test('PUT creates (201) then replaces (200) and answers size, sha256, updatedAt; each write stores its bytes under a key of its own, the replaced ones kept', async () => {
      const bytes = randomBytes(5000);
      const created = await client.put('img', 'a.bin', bytes);
      assert.equal(created.status, 201, created.body);
      assert.equal(created.headers['content-type'], 'application/json');
      assertContractHeaders(created);
      const body = created.json();
      assert.equal(body.size, 5000);
      assert.equal(body.sha256, sha256(bytes));
      assert.ok(!Number.isNaN(Date.parse(body.updatedAt)));
      const record = () => svc.service.store.files.getFile(fixture.channel.id, 'img', 'a.bin');
      const first = (await record())!.blobKey;
      assert.deepEqual(await storedBytes(svc.config, first), bytes);

      const replaced = await client.put('img', 'a.bin', 'short');
      assert.equal(replaced.status, 200);
      assert.equal(replaced.json().size, 5);
      const second = (await record())!.blobKey;
      assert.notEqual(second, first, 'a new key: the bytes a record names are never rewritten');
      assert.equal((await storedBytes(svc.config, second))?.toString(), 'short');
      assert.deepEqual(await storedBytes(svc.config, first), bytes, 'the replaced bytes stay, as the version that keeps them');
      const [kept] = (await svc.service.store.files.listVersions(fixture.channel.id, 'img', 'a.bin', { limit: 1 })).items;
      assert.equal(kept?.blobKey, first);
    });

    test('GET answers the bytes with ETag, 304 on a match, and Range', async () => {
      const bytes = randomBytes(1000);
      await client.put('img', 'range.bin', bytes);
      const whole = await client.get('img', 'range.bin');
      assert.equal(whole.status, 200);
      assert.deepEqual(whole.bytes, bytes);
      assert.equal(whole.headers.etag, `"${sha256(bytes)}"`);
      assert.equal(whole.headers['accept-ranges'], 'bytes');
      assert.equal(whole.headers['content-length'], '1000');

      assert.equal((await client.get('img', 'range.bin', { 'If-None-Match': whole.headers.etag })).status, 304);
      assert.equal((await client.get('img', 'range.bin', { 'If-None-Match': `"other", W/${whole.headers.etag}` })).status, 304);
      assert.equal((await client.get('img', 'range.bin', { 'If-None-Match': '"other"' })).status, 200);

      const part = await client.get('img', 'range.bin', { Range: 'bytes=10-19' });
      assert.equal(part.status, 206);
      assert.equal(part.headers['content-range'], 'bytes 10-19/1000');
      assert.deepEqual(part.bytes, bytes.subarray(10, 20));
      const suffix = await client.get('img', 'range.bin', { Range: 'bytes=-5' });
      assert.deepEqual(suffix.bytes, bytes.subarray(995));
      const beyond = await client.get('img', 'range.bin', { Range: 'bytes=5000-' });
      assertProblem(beyond, 416, 'RANGE_NOT_SATISFIABLE');
      assert.equal(beyond.headers['content-range'], 'bytes */1000');
    });

    test('uploaded content never renders as a page of the API origin', async () => {
      await client.put('web', 'x.html', '<script>alert(1)</script>', 'text/html');
      const html = await client.get('web', 'x.html');
      assert.equal(html.headers['content-security-policy'], 'sandbox');
      assert.match(String(html.headers['content-disposition']), /^attachment; filename="x.html"/);
      assert.equal(html.headers['x-content-type-options'], 'nosniff');
      await client.put('web', 'note.txt', 'hello', 'text/plain; charset=utf-8');
      const text = await client.get('web', 'note.txt');
      assert.match(String(text.headers['content-disposition']), /^inline;/);
      assert.equal(text.headers['content-security-policy'], 'sandbox');
      await client.put('web', 'evil.svg', '<svg onload="alert(1)"/>', 'image/svg+xml');
      assert.match(String((await client.get('web', 'evil.svg')).headers['content-disposition']), /^attachment;/, 'SVG can carry script');
      assert.equal((await client.put('web', 'untyped', 'x', 'ignored', { 'Content-Type': undefined })).status, 201);
      assert.equal((await client.get('web', 'untyped')).headers['content-type'], 'application/octet-stream');
      assertProblem(await client.put('web', 'badly-typed', 'x', 'not a type'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    test('listing pages through a folder: 50 by default, ?limit up to 1000, ?cursor', async () => {
      for (let i = 0; i < 7; i++) assert.equal((await client.put('many', `f${i}.txt`, `n${i}`)).status, 201);
      const first = await client.list('many', '?limit=3');
      assert.equal(first.status, 200, first.body);
      assert.deepEqual(
        first.json().items.map((f: { filename: string }) => f.filename),
        ['f0.txt', 'f1.txt', 'f2.txt'],
      );
      const seen = [...first.json().items];
      let next = first.json().next;
      while (next) {
        const page = await client.list('many', `?limit=3&cursor=${encodeURIComponent(next)}`);
        seen.push(...page.json().items);
        next = page.json().next;
      }
      assert.deepEqual(
        seen.map((f) => f.filename),
        ['f0.txt', 'f1.txt', 'f2.txt', 'f3.txt', 'f4.txt', 'f5.txt', 'f6.txt'],
      );
      assert.equal(seen[3].sha256, sha256('n3'));
      assert.equal((await client.list('many')).json().items.length, 7);
      assert.equal((await client.list('empty-folder')).json().items.length, 0);
      assertProblem(await client.list('many', '?limit=1001'), 400, 'VALIDATION_FAILED');
      assertProblem(await client.list('many', '?limit=0'), 400, 'VALIDATION_FAILED');
      assertProblem(await client.list('many', '?cursor=garbage'), 400, 'VALIDATION_FAILED');
    });

    test('DELETE removes the live file; it stays restorable', async () => {
      await client.put('del', 'gone.txt', 'keep me');
      const deleted = await client.delete('del', 'gone.txt');
      assert.equal(deleted.status, 204);
      assertProblem(await client.get('del', 'gone.txt'), 404, 'FILE_NOT_FOUND');
      assertProblem(await client.delete('del', 'gone.txt'), 404, 'FILE_NOT_FOUND');
      const versions = (await client.versions('del', 'gone.txt')).json().items;
      assert.equal(versions[0].kind, 'deleted');
      assert.equal(versions[0].sha256, sha256('keep me'));
      assert.equal((await client.restore('del', 'gone.txt', `?versionId=${versions[0].id}`)).status, 200);
      assert.equal((await client.get('del', 'gone.txt')).body, 'keep me');
    });

    test(`a body over MAX_FILE_BYTES is refused with 413 and the current file is untouched`, async () => {
      await client.put('big', 'f.bin', 'original');
      const tooBig = await client.put('big', 'f.bin', Buffer.alloc(MAX_FILE_BYTES + 1, 1));
      assertProblem(tooBig, 413, 'PAYLOAD_TOO_LARGE');
      assert.equal((await client.get('big', 'f.bin')).body, 'original');
      assert.equal((await client.versions('big', 'f.bin')).json().items.length, 0, 'nothing kept for a refused upload');
      assert.equal((await client.put('big', 'g.bin', Buffer.alloc(MAX_FILE_BYTES, 1))).status, 201, 'exactly the limit is fine');
    });

    test('backups: 201 with counts, 409 within the same second, listed newest first', async () => {
      await nextSecond();
      const first = await client.backup();
      assert.equal(first.status, 201, first.body);
      const again = await client.backup();
      // Both in one second is likely but not certain; either way nothing is half-made.
      if (again.status !== 201) assertProblem(again, 409, 'BACKUP_EXISTS');
      await nextSecond();
      const later = await client.backup();
      assert.equal(later.status, 201);
      const listed = (await client.backups()).json();
      assert.equal(listed.items[0].timestamp, later.json().timestamp);
      const timestamps = listed.items.map((b: { timestamp: string }) => b.timestamp);
      assert.deepEqual(timestamps, [...timestamps].sort().reverse());
      assert.ok(first.json().files >= 7 && first.json().bytes > 0);
      // Who made it, by id and by name, and what: an admin's request.
      const made = later.json();
      assert.deepEqual([made.createdBy, made.createdByName, made.origin], [fixture.owner.id, fixture.owner.displayName, 'api']);
      assert.deepEqual(
        [listed.items[0].createdBy, listed.items[0].createdByName, listed.items[0].origin],
        [fixture.owner.id, fixture.owner.displayName, 'api'],
      );
    });

    test("a backup copies and links nothing: an instant of the channel's history, whatever its size", async () => {
      await nextSecond();
      const requestsBefore = storage.s3?.requests.length ?? 0;
      const blobsBefore = storage.s3 ? [] : await filesUnder(path.join(svc.config.dataDir, 'storage'));
      const backup = await client.backup();
      assert.equal(backup.status, 201);
      assert.ok(backup.json().files > 1, "the backup counts the channel's files");
      if (storage.s3) {
        const during = storage.s3.requests.slice(requestsBefore);
        assert.deepEqual(during, [], 'no request to the bucket');
        return;
      }
      assert.deepEqual(await filesUnder(path.join(svc.config.dataDir, 'storage')), blobsBefore, 'no blob written or linked');
    });

    test('names up to 255 bytes of UTF-8 work, longer ones and unsafe ones are refused clearly', async () => {
      const ofBytes = (bytes: number) => `${'é'.repeat(Math.floor((bytes - 1) / 2))}a`;
      // 255 bytes (765 characters once percent-encoded); s3rver holds no more than S3RVER_LONGEST_SEGMENT_BYTES.
      const longest = ofBytes(storage.s3 ? S3RVER_LONGEST_SEGMENT_BYTES : 255);
      assert.equal((await client.put('names', longest, 'x')).status, 201);
      assert.equal((await client.get('names', longest)).body, 'x');
      assert.equal((await client.list('names')).json().items[0].filename, longest);
      assertProblem(await client.put('names', `${ofBytes(255)}b`, 'x'), 400, 'INVALID_PATH');
      // '.' and '..' are in the traversal test: URL parsers, this client's included, resolve them away.
      for (const bad of ['.hidden', 'a\\b', 'nul\u0000byte', 'trailing.', 'trailing ', ' ', 'tab\tname']) {
        assertProblem(await client.put('names', bad, 'x'), 400, 'INVALID_PATH');
        assertProblem(await client.put(bad, 'f.txt', 'x'), 400, 'INVALID_PATH');
      }
      assertProblem(await client.put('names', 'x'.repeat(2000), 'x'), 414, 'URI_TOO_LONG');
      const malformed = await request(svc.baseUrl, `/api/channels/${fixture.channel.id}/folders/names/files/bad%zz%c0`, {
        method: 'PUT',
        headers: client.auth,
        body: 'x',
      });
      assertProblem(malformed, 400, 'INVALID_PATH');
      const named = await svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: 'n'.repeat(200) });
      const writer = await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:write'], channels: [named] });
      const byName = new FilesClient(svc.baseUrl, named.name, { ...(await signIn(writer.wallet, domain)) });
      assert.equal((await byName.put('docs', 'f.txt', 'by a 200-character name')).status, 201);
    });

    test('each endpoint needs its permission; owners hold them all', async () => {
      const nobody = await memberClient([]);
      assertProblem(await nobody.get('many', 'f0.txt'), 403, 'PERMISSION_DENIED');
      assertProblem(await nobody.list('many'), 403, 'PERMISSION_DENIED');
      assertProblem(await nobody.versions('many', 'f0.txt'), 403, 'PERMISSION_DENIED');
      assertProblem(await nobody.put('many', 'f0.txt', 'x'), 403, 'PERMISSION_DENIED');
      assertProblem(await nobody.delete('many', 'f0.txt'), 403, 'PERMISSION_DENIED');
      assertProblem(await nobody.backup(), 403, 'PERMISSION_DENIED');
      assertProblem(await nobody.backups(), 403, 'PERMISSION_DENIED');
      assertProblem(await nobody.audit(), 403, 'PERMISSION_DENIED');
      assert.equal((await client.get('many', 'f0.txt')).body, 'n0', 'a refused PUT changed nothing');

      const writer = await memberClient(['files:write']);
      assert.equal((await writer.put('many', 'w.txt', 'w')).status, 201);
      assertProblem(await writer.get('many', 'w.txt'), 403, 'PERMISSION_DENIED');
      const reader = await memberClient(['files:read']);
      assert.equal((await reader.get('many', 'w.txt')).body, 'w');
      assert.equal((await reader.backups()).status, 200);
      assertProblem(await reader.backup(), 403, 'PERMISSION_DENIED');
      const backupper = await memberClient(['backups:create']);
      await nextSecond();
      assert.equal((await backupper.backup()).status, 201);
      const auditor = await memberClient(['audit:read']);
      assert.equal((await auditor.audit()).status, 200);
    });

    test('the audit log holds every write and every refused restore, newest first', async () => {
      const own = new FilesClient(svc.baseUrl, audited.id, client.auth);
      const put = await own.put('a', 'f.txt', 'one');
      await nextSecond();
      const backup = await own.backup();
      await own.put('a', 'f.txt', 'two');
      await own.restore('a', 'f.txt', `?backupTimestamp=${backup.json().timestamp}`);
      await own.restore('a', 'f.txt', '?backupTimestamp=20000101_000000');
      const reader = await createMemberAdmin(svc.service.store, fixture, {
        permissions: ['files:read'],
        channels: [audited],
        displayName: 'Reader of the audited channel',
      });
      const readerClient = new FilesClient(svc.baseUrl, audited.id, { ...(await signIn(reader.wallet, domain)) });
      await readerClient.restore('a', 'f.txt', '');
      const outsider = await createTenantFixture(svc.service.store, 'Outsider');
      const outsiderClient = new FilesClient(svc.baseUrl, audited.id, { ...(await signIn(outsider.ownerWallet, domain)) });
      assertProblem(await outsiderClient.restore('a', 'f.txt', ''), 404, 'CHANNEL_NOT_FOUND');
      await own.delete('a', 'f.txt');

      const log = await own.audit('?limit=100');
      assert.equal(log.status, 200, log.body);
      const events = log.json().items as Record<string, unknown>[];
      assert.deepEqual(
        events.map((e) => [e.action, e.result, e.code]),
        [
          ['delete', 'ok', null],
          // The outsider's attempt is not here: another tenant's refusal never writes into this tenant's log.
          ['restore', 'refused', 'PERMISSION_DENIED'],
          ['restore', 'refused', 'BACKUP_NOT_FOUND'],
          ['restore', 'ok', null],
          ['upload', 'ok', null],
          ['backup', 'ok', null],
          ['upload', 'ok', null],
        ],
      );
      assert.ok(!events.some((e) => e.adminId === outsider.owner.id), 'nothing of the other tenant in this log');
      const restore = events[3]!;
      assert.equal(restore.adminId, fixture.owner.id);
      assert.equal(restore.backupTimestamp, backup.json().timestamp);
      assert.equal(restore.sha256, sha256('one'));
      assert.equal(typeof restore.versionId, 'string');
      assert.equal(events[1]!.adminId, reader.admin.id);
      // People read names: each event names its admin by display name beside the id.
      assert.equal(restore.adminName, fixture.owner.displayName);
      assert.equal(events[1]!.adminName, 'Reader of the audited channel');
      assert.equal(restore.at, null, 'a backup was named, no instant');
      assert.equal(events[6]!.sha256, put.json().sha256);
      const paged = await own.audit('?limit=2');
      assert.equal(paged.json().items.length, 2);
      const rest = await own.audit(`?limit=100&cursor=${encodeURIComponent(paged.json().next)}`);
      assert.deepEqual(
        [...paged.json().items, ...rest.json().items].map((e: { id: string }) => e.id),
        events.map((e) => e.id),
      );
    });
  });
}

async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
