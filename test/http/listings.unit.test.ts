import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Channel } from '../../src/model/channels.ts';
import { assertContractHeaders, assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { type AuthHeaders, signIn, type TestWallet } from '../helpers/wallets.ts';

/** Every item of a listing, page by page (`limit` each), with the number of requests it took. */
async function allPages(fetchPage: (query: string) => Promise<HttpResponse>, limit: number): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let pages = 0;
  let next: string | null = null;
  do {
    const cursor: string = next === null ? '' : `&cursor=${encodeURIComponent(next)}`;
    const page = await fetchPage(`?limit=${limit}${cursor}`);
    assert.equal(page.status, 200, page.body);
    assertContractHeaders(page);
    const body = page.json();
    assert.ok(body.items.length <= limit);
    items.push(...body.items);
    next = body.next;
    pages++;
  } while (next !== null);
  return { items, pages };
}

for (const engine of ENGINES) {
  describe(`channel and folder listings (${engine})`, () => {
    let svc: TestService;
    let home: TenantFixture;
    let other: TenantFixture;
    let domain: string;
    let owner: AuthHeaders;
    /** The owner's linked channels, by name: home's `main` and the ones linked in `before`. */
    let linked: Channel[];
    let unlinked: Channel;

    const channels = (auth: object, query = '') => request(svc.baseUrl, `/api/channels${query}`, { headers: auth });
    const folders = (channelRef: string, auth: object, query = '') =>
      request(svc.baseUrl, `/api/channels/${encodeURIComponent(channelRef)}/folders${query}`, { headers: auth });
    const member = async (permissions: string[], channelsLinked: Channel[]): Promise<TestWallet> =>
      (await createMemberAdmin(svc.service.store, home, { permissions, channels: channelsLinked })).wallet;

    before(async () => {
      svc = await startTestService(engine);
      domain = svc.config.auth.domains[0]!;
      const store = svc.service.store;
      home = await createTenantFixture(store, 'Home');
      other = await createTenantFixture(store, 'Other');
      linked = [home.channel];
      // Created out of name order, so that the listing's order is its own and not the creation order.
      for (const name of ['news', 'alpha', 'zeta', 'm2', 'm10', 'beta']) {
        const channel = await store.createChannel({ tenantId: home.tenant.id, name });
        await store.linkChannel(channel.id, home.owner.id);
        linked.push(channel);
      }
      linked.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      unlinked = await store.createChannel({ tenantId: home.tenant.id, name: 'not-linked' });
      // Another tenant's channel, named to sort among the home ones.
      await store.createChannel({ tenantId: other.tenant.id, name: 'gamma' });
      owner = await signIn(home.ownerWallet, domain);
    });
    after(() => svc.close());

    test("GET /api/channels pages through the caller's linked channels by name: id, name, createdAt", async () => {
      const { items, pages } = await allPages((query) => channels(owner, query), 3);
      assert.equal(pages, 3, '7 channels, 3 a page');
      assert.deepEqual(
        items,
        linked.map((c) => ({ id: c.id, name: c.name, archived: false, createdAt: new Date(c.createdAt).toISOString() })),
      );
      assert.ok(!items.some((c) => c.id === unlinked.id), 'a channel of the tenant the admin is not linked to is not listed');
      assert.match(String(items[0]?.createdAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const whole = await channels(owner);
      assert.equal(whole.status, 200);
      assert.deepEqual(whole.json(), { items, next: null }, 'one page of 50 by default');
    });

    test("only the caller's own links count: not another tenant's channels, not unlinked ones", async () => {
      const theirs = (await channels(await signIn(other.ownerWallet, domain))).json();
      assert.deepEqual(
        theirs.items.map((c: { id: string }) => c.id),
        [other.channel.id],
      );

      // A member without any permission sees the one channel it is linked to: listing needs none.
      const reader = await member([], [linked[2]!]);
      const mine = await channels(await signIn(reader, domain));
      assert.equal(mine.status, 200, mine.body);
      assert.deepEqual(
        mine.json().items.map((c: { id: string }) => c.id),
        [linked[2]!.id],
      );
      const loner = await member(['files:read'], []);
      assert.deepEqual((await channels(await signIn(loner, domain))).json(), { items: [], next: null });

      // A link made or removed shows in the next listing.
      const store = svc.service.store;
      await store.linkChannel(unlinked.id, home.owner.id);
      assert.ok((await channels(owner)).json().items.some((c: { id: string }) => c.id === unlinked.id));
      await store.unlinkChannel(unlinked.id, home.owner.id);
      assert.ok(!(await channels(owner)).json().items.some((c: { id: string }) => c.id === unlinked.id));
    });

    test('GET /api/channels refuses in the one problem format: 401 unsigned, 403 suspended, 400 bad paging', async () => {
      assertProblem(await channels({}), 401, 'AUTH_HEADERS_MISSING');
      const suspended = await createMemberAdmin(svc.service.store, home, { channels: [home.channel] });
      await svc.service.store.setAdminStatus(suspended.admin.id, 'SUSPENDED');
      assertProblem(await channels(await signIn(suspended.wallet, domain)), 403, 'ADMIN_SUSPENDED');
      assertProblem(await channels(owner, '?cursor=garbage'), 400, 'VALIDATION_FAILED');
      // A cursor of another listing (a folder's, one name) is not one of this listing's.
      const folderCursor = Buffer.from(JSON.stringify(['docs'])).toString('base64url');
      assertProblem(await channels(owner, `?cursor=${folderCursor}`), 400, 'VALIDATION_FAILED');
      assertProblem(await channels(owner, '?limit=0'), 400, 'VALIDATION_FAILED');
      assertProblem(await channels(owner, '?limit=1001'), 400, 'VALIDATION_FAILED');
    });

    test('GET …/folders pages through the folders that hold live files, by name, with their file counts', async () => {
      const channel = linked.find((c) => c.name === 'alpha')!;
      const client = new FilesClient(svc.baseUrl, channel.id, { ...owner });
      const layout: Record<string, number> = { docs: 3, img: 1, archive: 2, 'b-side': 4, zz: 1 };
      for (const [folder, count] of Object.entries(layout))
        for (let i = 0; i < count; i++) assert.equal((await client.put(folder, `f${i}.txt`, `${folder} ${i}`)).status, 201);
      const expected = Object.keys(layout)
        .sort()
        .map((name) => ({ name, fileCount: layout[name] }));

      const { items, pages } = await allPages((query) => folders(channel.id, owner, query), 2);
      assert.equal(pages, 3, '5 folders, 2 a page');
      assert.deepEqual(items, expected);
      assert.deepEqual((await folders(channel.name, owner)).json(), { items: expected, next: null }, 'by name too, 50 a page');
      assert.deepEqual((await folders(home.channel.id, owner)).json(), { items: [], next: null }, 'a channel without files');
      assertProblem(await folders(channel.id, owner, '?cursor=garbage'), 400, 'VALIDATION_FAILED');
    });

    test('file counts follow uploads and deletes; a folder whose last file is deleted is no longer listed', async () => {
      const channel = linked.find((c) => c.name === 'beta')!;
      const client = new FilesClient(svc.baseUrl, channel.id, { ...owner });
      const counts = async () => (await folders(channel.id, owner)).json().items;
      await client.put('docs', 'a.txt', 'a');
      await client.put('docs', 'b.txt', 'b');
      await client.put('once', 'only.txt', 'x');
      assert.deepEqual(await counts(), [
        { name: 'docs', fileCount: 2 },
        { name: 'once', fileCount: 1 },
      ]);

      assert.equal((await client.put('docs', 'c.txt', 'c')).status, 201);
      assert.equal((await client.put('docs', 'a.txt', 'a, replaced')).status, 200, 'a replacement is no new file');
      assert.deepEqual(await counts(), [
        { name: 'docs', fileCount: 3 },
        { name: 'once', fileCount: 1 },
      ]);

      assert.equal((await client.delete('docs', 'b.txt')).status, 204);
      assert.equal((await client.delete('once', 'only.txt')).status, 204);
      assert.deepEqual(await counts(), [{ name: 'docs', fileCount: 2 }], 'deleted files are versions now, not live files');

      const version = (await client.versions('once', 'only.txt')).json().items[0];
      assert.equal((await client.restore('once', 'only.txt', `?versionId=${version.id}`)).status, 200);
      assert.deepEqual(await counts(), [
        { name: 'docs', fileCount: 2 },
        { name: 'once', fileCount: 1 },
      ]);
    });

    test('GET …/folders refuses as every channel route does: 401, 404 for channels not the caller’s, 403 without files:read', async () => {
      const channel = home.channel;
      assertProblem(await folders(channel.id, {}), 401, 'AUTH_HEADERS_MISSING');
      assertProblem(await folders(unlinked.id, owner), 404, 'CHANNEL_NOT_FOUND');
      assertProblem(await folders('chn_doesnotexist', owner), 404, 'CHANNEL_NOT_FOUND');
      assertProblem(await folders(channel.id, await signIn(other.ownerWallet, domain)), 404, 'CHANNEL_NOT_FOUND');
      assertProblem(await folders(channel.id, await signIn(await member(['files:read'], []), domain)), 404, 'CHANNEL_NOT_FOUND');
      const withoutRead = await signIn(await member(['files:write', 'files:restore', 'backups:create', 'audit:read'], [channel]), domain);
      assertProblem(await folders(channel.id, withoutRead), 403, 'PERMISSION_DENIED');
      const reader = await signIn(await member(['files:read'], [channel]), domain);
      assert.equal((await folders(channel.id, reader)).status, 200);
    });

    test('an unknown query parameter is refused, naming it, as by every route', async () => {
      const backups = new FilesClient(svc.baseUrl, home.channel.id, { ...owner });
      const alpha = linked.find((c) => c.name === 'alpha')!;
      for (const refused of [
        await backups.backups('?limit=2&colour=blue'),
        await channels(owner, '?limit=2&colour=blue'),
        await folders(alpha.id, owner, '?colour=blue&limit=1'),
      ]) {
        assertProblem(refused, 400, 'VALIDATION_FAILED');
        assert.match(refused.json().detail, /^Unknown query parameter: colour; this operation takes limit, cursor$/);
      }
      assert.equal((await folders(alpha.id, owner, '?limit=1')).status, 200, 'the declared ones still work');
    });

    test('the OpenAPI document lists both, with their item schemas and problem answers', async () => {
      const openapi = (await request(svc.baseUrl, '/api/openapi.json')).json();
      const list = openapi.paths['/api/channels']?.get;
      const folderList = openapi.paths['/api/channels/{channelRef}/folders']?.get;
      assert.ok(list, '/api/channels documented');
      assert.ok(folderList, '/api/channels/{channelRef}/folders documented');
      const itemOf = (operation: any) => operation.responses['200'].content['application/json'].schema.properties.items.items;
      assert.deepEqual(Object.keys(itemOf(list).properties).sort(), ['archived', 'createdAt', 'id', 'name']);
      assert.deepEqual(Object.keys(itemOf(folderList).properties).sort(), ['fileCount', 'name']);
      for (const status of ['400', '401', '403']) assert.ok(list.responses[status], `/api/channels documents ${status}`);
      for (const status of ['400', '401', '403', '404']) assert.ok(folderList.responses[status], `…/folders documents ${status}`);
      assert.deepEqual(list.parameters.map((p: { name: string }) => p.name).sort(), ['cursor', 'limit']);
    });
  });
}
