import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertContractHeaders, assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

interface Event {
  id: string;
  action: string;
  adminId: string | null;
  folder: string | null;
  filename: string | null;
  result: string;
  code: string | null;
}

type Filter = Partial<Record<'action' | 'adminId' | 'folder' | 'filename' | 'result', string>>;

const queryOf = (filter: Filter, extra: Record<string, string> = {}) => `?${new URLSearchParams({ ...filter, ...extra })}`;
const matches = (event: Event, filter: Filter) => Object.entries(filter).every(([field, value]) => event[field as keyof Event] === value);

for (const engine of ENGINES) {
  describe(`audit log filters (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let owner: FilesClient;
    let memberId: string;
    /** The whole log of the channel, newest first, unfiltered. */
    let all: Event[];

    const listAll = async (filter: Filter, limit: number): Promise<{ ids: string[]; pages: number }> => {
      const ids: string[] = [];
      let next: string | null = null;
      let pages = 0;
      do {
        const page = await owner.audit(queryOf(filter, { limit: String(limit), ...(next === null ? {} : { cursor: next }) }));
        assert.equal(page.status, 200, page.body);
        const body = page.json() as { items: Event[]; next: string | null };
        assert.ok(body.items.length <= limit);
        for (const item of body.items) assert.ok(matches(item, filter), `${JSON.stringify(item)} matches ${JSON.stringify(filter)}`);
        ids.push(...body.items.map((e) => e.id));
        next = body.next;
        pages++;
      } while (next !== null);
      return { ids, pages };
    };

    before(async () => {
      svc = await startTestService(engine);
      const domain = svc.config.auth.domains[0]!;
      fixture = await createTenantFixture(svc.service.store, 'Audit');
      owner = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, domain)) });
      const member = await createMemberAdmin(svc.service.store, fixture, { permissions: ['files:write'], channels: [fixture.channel] });
      memberId = member.admin.id;
      const writer = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(member.wallet, domain)) });

      for (const [folder, filename] of [
        ['docs', 'a.txt'],
        ['docs', 'b.txt'],
        ['img', 'a.txt'],
      ] as const)
        assert.equal((await owner.put(folder, filename, `${folder}/${filename}`)).status, 201);
      await nextSecond();
      const backup = (await owner.backup()).json().timestamp;
      assert.equal((await owner.put('docs', 'a.txt', 'edited')).status, 200);
      assert.equal((await owner.restore('docs', 'a.txt', `?backupTimestamp=${backup}`)).status, 200);
      assertProblem(await owner.restore('docs', 'a.txt', '?backupTimestamp=20000101_000000'), 404, 'BACKUP_NOT_FOUND');
      assert.equal((await owner.delete('img', 'a.txt')).status, 204);
      assert.equal((await writer.put('docs', 'a.txt', 'by the member')).status, 200);
      assert.equal((await writer.put('docs', 'c.txt', 'new from the member')).status, 201);
      assertProblem(await writer.restore('docs', 'b.txt', ''), 403, 'PERMISSION_DENIED');

      const log = await owner.audit('?limit=1000');
      assert.equal(log.status, 200, log.body);
      all = log.json().items;
      assert.equal(all.length, 11, JSON.stringify(all.map((e) => e.action)));
    });
    after(() => svc.close());

    test('each filter alone answers exactly the events that match it, newest first', async () => {
      const filters: Filter[] = [
        { action: 'upload' },
        { action: 'restore' },
        { action: 'backup' },
        { action: 'delete' },
        { adminId: fixture.owner.id },
        { adminId: memberId },
        { folder: 'docs' },
        { folder: 'img' },
        { filename: 'a.txt' },
        { result: 'ok' },
        { result: 'refused' },
      ];
      for (const filter of filters) {
        const expected = all.filter((e) => matches(e, filter));
        assert.ok(expected.length > 0, `the log has events for ${JSON.stringify(filter)}`);
        assert.ok(expected.length < all.length, `and not only such events: ${JSON.stringify(filter)}`);
        const page = await owner.audit(queryOf(filter));
        assert.equal(page.status, 200, page.body);
        assertContractHeaders(page);
        assert.deepEqual(
          page.json().items.map((e: Event) => e.id),
          expected.map((e) => e.id),
          JSON.stringify(filter),
        );
        assert.equal(page.json().next, null);
      }
    });

    test('filters combine with AND', async () => {
      const cases: [Filter, number][] = [
        [{ action: 'upload', folder: 'docs', filename: 'a.txt' }, 3],
        [{ action: 'upload', adminId: memberId }, 2],
        [{ action: 'restore', result: 'refused' }, 2],
        [{ action: 'restore', result: 'refused', adminId: memberId }, 1],
        [{ action: 'restore', result: 'ok', folder: 'docs', filename: 'a.txt', adminId: fixture.owner.id }, 1],
        [{ folder: 'img', filename: 'a.txt' }, 2],
        [{ action: 'delete', adminId: memberId }, 0],
      ];
      for (const [filter, count] of cases) {
        const expected = all.filter((e) => matches(e, filter)).map((e) => e.id);
        assert.equal(expected.length, count, `the log has ${count} for ${JSON.stringify(filter)}`);
        const page = await owner.audit(queryOf(filter));
        assert.equal(page.status, 200, page.body);
        assert.deepEqual(
          page.json().items.map((e: Event) => e.id),
          expected,
          JSON.stringify(filter),
        );
      }
      const refused = (await owner.audit(queryOf({ action: 'restore', result: 'refused' }))).json().items as Event[];
      assert.deepEqual(
        refused.map((e) => e.code),
        ['PERMISSION_DENIED', 'BACKUP_NOT_FOUND'],
      );
    });

    test('a cursor goes on with the same filters, page by page, neither skipping nor repeating', async () => {
      for (const filter of [{ action: 'upload' }, { folder: 'docs' }, { result: 'ok', folder: 'docs' }, {}] as Filter[]) {
        const expected = all.filter((e) => matches(e, filter)).map((e) => e.id);
        const { ids, pages } = await listAll(filter, 2);
        assert.deepEqual(ids, expected, JSON.stringify(filter));
        assert.equal(pages, Math.max(1, Math.ceil(expected.length / 2)), `pages for ${JSON.stringify(filter)}`);
      }
      // New events arriving between two pages do not disturb the listing (newest first: they precede the cursor).
      const first = (await owner.audit(queryOf({ action: 'upload' }, { limit: '2' }))).json();
      assert.equal((await owner.put('docs', 'late.txt', 'late')).status, 201);
      const rest = (await owner.audit(queryOf({ action: 'upload' }, { limit: '100', cursor: first.next }))).json();
      assert.deepEqual(
        [...first.items, ...rest.items].map((e: Event) => e.id),
        all.filter((e) => e.action === 'upload').map((e) => e.id),
      );
      all = (await owner.audit('?limit=1000')).json().items;
    });

    test('a value no event holds answers an empty page, not an error', async () => {
      for (const filter of [{ adminId: 'adm_00000000000000000000000000' }, { folder: 'nope' }, { filename: 'a.txt', folder: 'nope' }]) {
        const page = await owner.audit(queryOf(filter));
        assert.equal(page.status, 200, page.body);
        assert.deepEqual(page.json(), { items: [], next: null });
      }
    });

    test('invalid values are 400 VALIDATION_FAILED saying which parameter and why', async () => {
      const cases: [string, RegExp][] = [
        ['?action=', /action/],
        ['?action=rename', /action.*"upload", "delete", "backup", "restore"/],
        ['?action=UPLOAD', /action/],
        ['?result=maybe', /result.*"ok", "refused", "failed"/],
        ['?result=', /result/],
        ['?adminId=', /adminId/],
        ['?action=upload&action=delete', /action/],
        [`?adminId=${'a'.repeat(101)}`, /adminId/],
        ['?folder=', /folder/],
        [`?folder=${'f'.repeat(256)}`, /folder/],
        ['?filename=', /filename/],
        [`?filename=${'n'.repeat(256)}`, /filename/],
        ['?filename=a%00b', /filename.*control/],
        ['?folder=docs%0A', /folder.*control/],
        ['?action=upload&cursor=garbage', /cursor/],
      ];
      for (const [query, detail] of cases) {
        const response = await owner.audit(query);
        assertProblem(response, 400, 'VALIDATION_FAILED');
        assert.match(response.json().detail, detail, query);
      }
      // The longest names the log can hold are accepted.
      assert.equal((await owner.audit(`?folder=${'f'.repeat(255)}&filename=${'n'.repeat(255)}`)).status, 200);
    });

    test('the OpenAPI document lists the filters, with the actions and results they accept', async () => {
      const openapi = (await request(svc.baseUrl, '/api/openapi.json')).json();
      const operation = openapi.paths['/api/channels/{channelRef}/audit'].get;
      const parameters = Object.fromEntries(
        operation.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string; schema: object }) => [p.name, p]),
      );
      assert.deepEqual(Object.keys(parameters).sort(), [
        'action',
        'adminId',
        'cursor',
        'filename',
        'folder',
        'limit',
        'operationId',
        'result',
      ]);
      assert.deepEqual(parameters.action.schema.enum, [
        'upload',
        'delete',
        'backup',
        'restore',
        'backup.delete',
        'backup.lock',
        'retention',
        'archive',
      ]);
      assert.deepEqual(parameters.result.schema.enum, ['ok', 'refused', 'failed']);
      assert.equal(parameters.folder.schema.maxLength, 255);
      assert.equal(parameters.folder.required, false);
    });
  });
}
