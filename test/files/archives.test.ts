import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';
import { readZip, testedByTools } from '../helpers/zip.ts';

for (const setup of FILE_SETUPS) {
  describe(`folder and channel archives (${setup})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let files: FilesClient;
    const archive = (query = '', folder?: string, auth = files.auth) =>
      request(
        svc.baseUrl,
        `/api/channels/${fixture.channel.id}${folder === undefined ? '' : `/folders/${encodeURIComponent(folder)}`}/archive${query}`,
        { headers: auth },
      );

    before(async () => {
      svc = await startTestService(setup, { transport: 'socket', env: { ARCHIVE_MAX_PER_ADMIN: '1' } });
      fixture = await createTenantFixture(svc.service.store, 'Archives');
      files = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    });
    after(() => svc.close());

    test('a folder archive holds its live files, UTF-8 names flagged, tested by unzip, 7z and a second reader', async () => {
      const tree = { 'a.txt': 'alpha', 'Überraschung ñ 日本.txt': 'unicode name', 'empty.bin': '' };
      for (const [name, text] of Object.entries(tree)) assert.equal((await files.put('docs', name, text)).status, 201);
      await files.put('other', 'x.txt', 'not in the docs folder');
      const response = await archive('', 'docs');
      assert.equal(response.status, 200, response.body);
      assert.equal(response.headers['content-type'], 'application/zip');
      assert.equal(Number(response.headers['content-length']), response.bytes.length);
      assert.equal(response.headers['content-disposition'], `attachment; filename="main-docs.zip"; filename*=UTF-8''main-docs.zip`);
      await testedByTools(response.bytes);
      const entries = await readZip(response.bytes);
      assert.deepEqual(
        [...entries.keys()].sort(),
        Object.keys(tree)
          .map((name) => `docs/${name}`)
          .sort(),
      );
      for (const [name, text] of Object.entries(tree)) {
        const entry = entries.get(`docs/${name}`)!;
        assert.equal(entry.sha256, sha256(text), name);
        assert.equal(entry.utf8, true, `${name}: the UTF-8 flag is set`);
      }
      // One 'archive' entry, after the stream, naming the folder.
      const events = (await files.audit('?action=archive')).json().items;
      assert.equal(events.length, 1);
      assert.equal(events[0].folder, 'docs');
      assert.equal(events[0].result, 'ok');
    });

    test('an archive at a backup or an instant holds exactly that state; the live one holds now', async () => {
      await files.put('hist', 'kept.txt', 'unchanged');
      await files.put('hist', 'changed.txt', 'before');
      await files.put('hist', 'deleted.txt', 'deleted later');
      await nextSecond();
      const backup = (await files.backup()).json().timestamp as string;
      await nextSecond();
      const instant = new Date().toISOString();
      await nextSecond();
      await files.put('hist', 'changed.txt', 'after');
      await files.delete('hist', 'deleted.txt');
      await files.put('hist', 'added.txt', 'added later');
      const then = { 'hist/kept.txt': 'unchanged', 'hist/changed.txt': 'before', 'hist/deleted.txt': 'deleted later' };
      const now = { 'hist/kept.txt': 'unchanged', 'hist/changed.txt': 'after', 'hist/added.txt': 'added later' };
      for (const [query, expected] of [
        [`?backupTimestamp=${backup}`, then],
        [`?at=${encodeURIComponent(instant)}`, then],
        ['', now],
      ] as const) {
        const response = await archive(query, 'hist');
        assert.equal(response.status, 200, `${query}: ${response.body}`);
        await testedByTools(response.bytes);
        const entries = await readZip(response.bytes);
        assert.deepEqual(
          Object.fromEntries([...entries].map(([name, entry]) => [name, entry.sha256])),
          Object.fromEntries(Object.entries(expected).map(([name, text]) => [name, sha256(text)])),
          query,
        );
      }
      // The whole channel at the backup: every folder, as it was.
      const channel = await readZip((await archive(`?backupTimestamp=${backup}`)).bytes);
      assert.equal(channel.get('hist/changed.txt')?.sha256, sha256('before'));
      assert.equal(channel.has('hist/added.txt'), false);
      assert.equal(channel.get('other/x.txt')?.sha256, sha256('not in the docs folder'));
    });

    test('bad requests are refused in the problem format, and recorded', async () => {
      assertProblem(await archive('?backupTimestamp=20200101_000000', 'docs'), 404, 'BACKUP_NOT_FOUND');
      assertProblem(await archive('?backupTimestamp=2020-01-01', 'docs'), 400, 'INVALID_TIMESTAMP');
      assertProblem(await archive('?at=2999-01-01T00:00:00Z'), 400, 'VALIDATION_FAILED');
      assertProblem(await archive('?at=2026-01-01T00:00:00Z&backupTimestamp=20200101_000000'), 400, 'VALIDATION_FAILED');
      assertProblem(await archive('?format=tar'), 400, 'VALIDATION_FAILED');
      const refused = (await files.audit('?action=archive&result=refused')).json().items;
      assert.ok(refused.length >= 3, 'each refusal after the channel was entered is in the log');
      // A reader without files:read on the channel gets nothing.
      const stranger = await createTenantFixture(svc.service.store, 'Stranger');
      const strangerAuth = { ...(await signIn(stranger.ownerWallet, svc.config.auth.domains[0]!)) };
      assert.equal((await archive('', 'docs', strangerAuth)).status, 404);
      const member = await createMemberAdmin(svc.service.store, fixture, { permissions: [], channels: [fixture.channel] });
      const memberAuth = { ...(await signIn(member.wallet, svc.config.auth.domains[0]!)) };
      assertProblem(await archive('', 'docs', memberAuth), 403, 'PERMISSION_DENIED');
    });

    test('archives one admin streams at once are bounded (429), and a finished one frees its place', async () => {
      await files.put('big', 'large.bin', Buffer.alloc(24 << 20, 7));
      const url = `${svc.baseUrl}/api/channels/${fixture.channel.id}/folders/big/archive`;
      // Headers received, the body left unread: the archive streams no further than the socket takes.
      const first = await fetch(url, { headers: files.auth as Record<string, string> });
      assert.equal(first.status, 200);
      const second = await archive('', 'big');
      assertProblem(second, 429, 'RATE_LIMITED');
      assert.match(second.json().detail, /At most 1 archives/);
      await first.body!.cancel();
      // The hold is released once the service sees the stream close.
      let third = await archive('', 'big');
      for (let i = 0; i < 50 && third.status === 429; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        third = await archive('', 'big');
      }
      assert.equal(third.status, 200, third.body);
      assert.equal((await readZip(third.bytes)).get('big/large.bin')?.size, 24 << 20);
      const failed = (await files.audit('?action=archive&result=failed')).json().items;
      assert.equal(failed.length, 1, 'the download cut short is recorded as failed');
    });
  });
}
