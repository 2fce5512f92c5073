import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const asCursor = (json: string) => Buffer.from(json, 'utf8').toString('base64url');

/**
 * Cursors a client made up instead of passing a `next` back: JSON of no listing's key (none is a
 * `["name"]` or a `[createdAt, "id"]` the service would issue), and text that is not base64url JSON.
 * Each list must refuse every one as 400 VALIDATION_FAILED, on every engine: PostgreSQL refuses a
 * bigint parameter such as 1.5 or 2^63 itself, which must not surface as a 500.
 */
const FORGED: [string, string][] = [
  ...[
    '[1.5,"x"]',
    '[1e308,"x"]',
    '[9223372036854775808,"x"]', // 2^63: beyond bigint
    '[9223372036854775807,"x"]', // bigint's largest, but not a number JSON keeps exactly
    '[9007199254740993,"x"]', // 2^53 + 1: not a safe integer
    '[-1,"x"]',
    '[-1e308,"x"]',
    '[1.5]',
    '[1e308]',
    '[9223372036854775808]',
    '[-1]',
    '[]',
    '[1]',
    '[1,"x","y"]',
    '["x","y","z"]',
    '["x",1.5]',
    '["x",1e308]',
    '[true,"x"]',
    '[null,"x"]',
    '[{},"x"]',
    '[[1],"x"]',
    '[["x"]]',
    '"x"',
    '{"0":"x"}',
    '1e308',
    '9223372036854775808',
    'null',
    '["\\u0000"]',
    `${'['.repeat(300)}${']'.repeat(300)}`,
  ].map((json): [string, string] => [`base64url of ${json.length > 40 ? 'JSON nested 300 deep' : json}`, asCursor(json)]),
  ['not base64url', '!!!'],
  ['base64url of no JSON', asCursor('not json')],
  ['empty', ''],
];

for (const engine of ENGINES) {
  describe(`forged page cursors (${engine})`, () => {
    let svc: TestService;
    /** Each list that takes a cursor, by name: a request for one page of it after `cursor`. */
    const lists = new Map<string, (cursor: string) => ReturnType<typeof request>>();

    before(async () => {
      svc = await startTestService(engine);
      const fixture = await createTenantFixture(svc.service.store, 'Cursors');
      const client = new FilesClient(svc.baseUrl, fixture.channel.id, {
        ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)),
      });
      assert.equal((await client.put('docs', 'a.txt', 'one')).status, 201);
      await nextSecond();
      const backup = await client.backup();
      assert.equal(backup.status, 201, backup.body);
      assert.equal((await client.put('docs', 'a.txt', 'two')).status, 200);
      assert.equal((await client.delete('docs', 'a.txt')).status, 204);
      const channel = `/api/channels/${fixture.channel.id}`;
      const add = (name: string, path: string, query = '') =>
        lists.set(name, (cursor) => request(svc.baseUrl, `${path}?${query}cursor=${encodeURIComponent(cursor)}`, { headers: client.auth }));
      add('channels', '/api/channels');
      add('folders', `${channel}/folders`);
      add('files', `${channel}/folders/docs/files`);
      add('versions', `${channel}/folders/docs/files/a.txt/versions`);
      add('backups', `${channel}/backups`);
      add('deleted', `${channel}/folders/docs/deleted`);
      add('changes', `${channel}/changes`, `from=${backup.json().timestamp}&`);
      add('audit', `${channel}/audit`);
    });
    after(() => svc.close());

    test('every list refuses every forged cursor as 400 VALIDATION_FAILED, never 500', async () => {
      assert.equal(lists.size, 8);
      for (const [name, page] of lists) {
        for (const [what, cursor] of FORGED) {
          const answer = await page(cursor);
          assert.equal(answer.status, 400, `${name}, ${what}: ${answer.body}`);
          assertProblem(answer, 400, 'VALIDATION_FAILED');
          assert.match(answer.json().detail, /cursor is not one this service issued/, `${name}, ${what}`);
        }
      }
    });

    test('a cursor of the right shape still pages, at the edges of what the keys hold', async () => {
      const time = (n: number) => asCursor(JSON.stringify([n, 'x']));
      for (const name of ['versions', 'audit']) {
        for (const cursor of [time(0), time(Date.now()), time(Number.MAX_SAFE_INTEGER)]) {
          const answer = await lists.get(name)!(cursor);
          assert.equal(answer.status, 200, `${name}: ${answer.body}`);
        }
      }
      for (const name of ['folders', 'files', 'deleted', 'backups']) {
        const answer = await lists.get(name)!(asCursor('["a"]'));
        assert.equal(answer.status, 200, `${name}: ${answer.body}`);
      }
      for (const name of ['channels', 'changes']) {
        const answer = await lists.get(name)!(asCursor('["a","b"]'));
        assert.equal(answer.status, 200, `${name}: ${answer.body}`);
      }
    });
  });
}
