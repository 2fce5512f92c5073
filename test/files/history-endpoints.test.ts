import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

interface Deleted {
  filename: string;
  deletedAt: string;
  deletedBy: string | null;
  deletedByName: string | null;
  versionId: string;
  size: number;
  sha256: string;
}
interface Change {
  folder: string;
  filename: string;
  change: string;
  size: number;
  sha256: string;
}

for (const setup of FILE_SETUPS) {
  describe(`deleted files and changes between backups (${setup})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let client: FilesClient;
    let domain: string;

    const get = (path: string, auth = client.auth): Promise<HttpResponse> =>
      request(svc.baseUrl, `/api/channels/${client.channelRef}${path}`, { headers: auth });
    const deleted = (folder: string, query = '') => get(`/folders/${encodeURIComponent(folder)}/deleted${query}`);
    const changes = (query: string) => get(`/changes${query}`);
    const changeList = async (query: string): Promise<[string, string, string, string][]> => {
      const answer = await changes(query);
      assert.equal(answer.status, 200, answer.body);
      return (answer.json().items as Change[]).map((c) => [c.change, `${c.folder}/${c.filename}`, c.sha256, String(c.size)]);
    };

    before(async () => {
      svc = await startTestService(setup);
      domain = svc.config.auth.domains[0]!;
      fixture = await createTenantFixture(svc.service.store, 'History');
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, domain)) });
    });
    after(() => svc.close());

    test('the deleted list: newest deletion per name, who deleted, not once uploaded again, paged, restorable', async () => {
      for (const name of ['a.txt', 'b.txt', 'c.txt']) assert.equal((await client.put('trash', name, `${name} one`)).status, 201);
      assert.equal((await client.put('kept', 'a.txt', 'elsewhere')).status, 201);
      assert.equal((await deleted('trash')).json().items.length, 0, 'nothing deleted yet');
      for (const name of ['a.txt', 'b.txt', 'c.txt']) assert.equal((await client.delete('trash', name)).status, 204);

      const first = await deleted('trash');
      assert.equal(first.status, 200, first.body);
      const items = first.json().items as Deleted[];
      assert.deepEqual(
        items.map((d) => [d.filename, d.sha256, d.size, d.deletedBy, d.deletedByName]),
        ['a.txt', 'b.txt', 'c.txt'].map((n) => [n, sha256(`${n} one`), `${n} one`.length, fixture.owner.id, fixture.owner.displayName]),
      );
      assert.equal(first.json().next, null);
      const versionsOfA = (await client.versions('trash', 'a.txt')).json().items;
      assert.deepEqual([versionsOfA[0].id, versionsOfA[0].kind], [items[0]!.versionId, 'deleted']);
      assert.equal(items[0]!.deletedAt, versionsOfA[0].time);
      assert.match(items[0]!.deletedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

      // Uploaded again: no longer deleted. Uploaded and deleted again: the newest deletion only.
      assert.equal((await client.put('trash', 'b.txt', 'b back')).status, 201);
      assert.equal((await client.put('trash', 'a.txt', 'a two')).status, 201);
      assert.equal((await client.delete('trash', 'a.txt')).status, 204);
      const again = (await deleted('trash')).json().items as Deleted[];
      assert.deepEqual(
        again.map((d) => [d.filename, d.sha256]),
        [
          ['a.txt', sha256('a two')],
          ['c.txt', sha256('c.txt one')],
        ],
      );
      assert.notEqual(again[0]!.versionId, items[0]!.versionId);

      // Paged by filename.
      const page1 = await deleted('trash', '?limit=1');
      assert.deepEqual(
        (page1.json().items as Deleted[]).map((d) => d.filename),
        ['a.txt'],
      );
      assert.ok(page1.json().next);
      const page2 = await deleted('trash', `?limit=1&cursor=${encodeURIComponent(page1.json().next)}`);
      assert.deepEqual(
        (page2.json().items as Deleted[]).map((d) => d.filename),
        ['c.txt'],
      );
      assert.equal(page2.json().next, null);

      // Restoring one by its versionId brings it back and off the list.
      const restored = await client.restore('trash', 'c.txt', `?versionId=${again[1]!.versionId}`);
      assert.equal(restored.status, 200, restored.body);
      assert.equal((await client.get('trash', 'c.txt')).body, 'c.txt one');
      assert.deepEqual(
        ((await deleted('trash')).json().items as Deleted[]).map((d) => d.filename),
        ['a.txt'],
      );
      assert.deepEqual((await deleted('kept')).json().items, [], 'other folders are apart');
      assert.deepEqual((await deleted('never-used')).json().items, []);
    });

    test('the deleted list refuses a bad folder, a bad cursor, and a caller without files:read', async () => {
      assertProblem(await deleted('.hidden'), 400, 'INVALID_PATH');
      assertProblem(await deleted('trash', '?cursor=bm9wZQ'), 400, 'VALIDATION_FAILED');
      const member = await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:write'], channels: [fixture.channel] });
      const memberAuth = { ...(await signIn(member.wallet, domain)) };
      assertProblem(await get('/folders/trash/deleted', memberAuth), 403, 'PERMISSION_DENIED');
      assertProblem(await get('/changes?from=20260101_000000', memberAuth), 403, 'PERMISSION_DENIED');
    });

    test('changes: added, changed and deleted between two backups and since one; equal bytes are no change', async () => {
      const other = await createTenantFixture(svc.service.store, 'Changes');
      const c = new FilesClient(svc.baseUrl, other.channel.id, { ...(await signIn(other.ownerWallet, domain)) });
      const first = client;
      client = c; // get() and changes() act on this channel from here on
      await c.put('x', 'keep.txt', 'keep');
      await c.put('x', 'change.txt', 'change one');
      await c.put('x', 'gone.txt', 'gone');
      await c.put('y', 'same.txt', 'same');
      await nextSecond();
      const t1 = (await c.backup()).json().timestamp as string;

      await c.put('x', 'change.txt', 'change two!');
      await c.delete('x', 'gone.txt');
      await c.put('x', 'new.txt', 'new');
      await c.put('y', 'same.txt', 'same'); // written again, same bytes
      await c.put('y', 'flip.txt', 'flip');
      await c.delete('y', 'flip.txt'); // came and went between the backups
      await nextSecond();
      const t2 = (await c.backup()).json().timestamp as string;
      await c.put('z', 'later.txt', 'later');
      await c.put('x', 'keep.txt', 'kept no more');

      const betweenBackups: [string, string, string, string][] = [
        ['changed', 'x/change.txt', sha256('change two!'), '11'],
        ['deleted', 'x/gone.txt', sha256('gone'), '4'],
        ['added', 'x/new.txt', sha256('new'), '3'],
      ];
      assert.deepEqual(await changeList(`?from=${t1}&to=${t2}`), betweenBackups);
      assert.deepEqual(await changeList(`?from=${t1}`), [
        ['changed', 'x/change.txt', sha256('change two!'), '11'],
        ['deleted', 'x/gone.txt', sha256('gone'), '4'],
        ['changed', 'x/keep.txt', sha256('kept no more'), '12'],
        ['added', 'x/new.txt', sha256('new'), '3'],
        ['added', 'z/later.txt', sha256('later'), '5'],
      ]);
      assert.deepEqual(await changeList(`?from=${t2}`), [
        ['changed', 'x/keep.txt', sha256('kept no more'), '12'],
        ['added', 'z/later.txt', sha256('later'), '5'],
      ]);
      assert.deepEqual(await changeList(`?from=${t1}&to=${t1}`), [], 'a backup against itself');
      assert.deepEqual(await changeList(`?from=${t1}&to=${t2}&folder=y`), [], 'y/same.txt has the same bytes');
      assert.deepEqual(await changeList(`?from=${t1}&folder=z`), [['added', 'z/later.txt', sha256('later'), '5']]);

      // Paged by (folder, filename): one at a time gives the same list.
      const walked: string[] = [];
      let cursor: string | null = null;
      do {
        const page: HttpResponse = await changes(`?from=${t1}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(page.status, 200, page.body);
        assert.ok(page.json().items.length <= 2);
        walked.push(...(page.json().items as Change[]).map((i) => `${i.folder}/${i.filename}`));
        cursor = page.json().next;
      } while (cursor !== null);
      assert.deepEqual(walked, ['x/change.txt', 'x/gone.txt', 'x/keep.txt', 'x/new.txt', 'z/later.txt']);

      // Refusals.
      assertProblem(await changes(`?from=${t2}&to=${t1}`), 400, 'VALIDATION_FAILED');
      assertProblem(await changes('?from=20261340_000000'), 400, 'INVALID_TIMESTAMP');
      assertProblem(await changes(`?from=${t1}&to=yesterday`), 400, 'INVALID_TIMESTAMP');
      assertProblem(await changes(''), 400, 'VALIDATION_FAILED');
      assertProblem(await changes(`?from=${t1}&folder=.x`), 400, 'INVALID_PATH');
      assertProblem(await changes(`?from=${t1}&cursor=bm9wZQ`), 400, 'VALIDATION_FAILED');
      assertProblem(await changes('?from=20000101_000000'), 404, 'BACKUP_NOT_FOUND');
      assertProblem(await changes(`?from=${t1}&to=29990101_000000`), 404, 'BACKUP_NOT_FOUND');
      // Another channel's backup is not this one's.
      client = first;
      assertProblem(await changes(`?from=${t1}`), 404, 'BACKUP_NOT_FOUND');
    });
  });
}
