import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

/**
 * Issue 18, item 1: what a request asks and the service does not understand is refused, never
 * ignored. `?backup=` (for backupTimestamp) used to restore the newest backup instead of the one
 * asked for; a body `{"backupTimestamp": …}` did the same.
 */
const SECRET = 'a-test-secret-for-the-signed-links-0123456789';
/** Routes not in the OpenAPI document, which take no query parameter either. */
const HIDDEN: [method: string, path: string][] = [
  ['GET', '/metrics'],
  ['GET', '/api/openapi.json'],
  ['GET', '/console/assets/main-0123.js'],
];

for (const engine of ENGINES) {
  describe(`unknown query parameters and restore bodies are refused (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let client: FilesClient;
    let older: string;
    let newer: string;

    before(async () => {
      svc = await startTestService(engine, { env: { FILE_URL_SIGNING: 'true', FILE_URL_SECRET: SECRET } });
      fixture = await createTenantFixture(svc.service.store, 'Queries');
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
      assert.equal((await client.put('docs', 'a.txt', 'in the older backup', 'text/plain')).status, 201);
      older = (await client.backup()).json().timestamp;
      await nextSecond();
      assert.equal((await client.put('docs', 'a.txt', 'in the newer backup', 'text/plain')).status, 200);
      newer = (await client.backup()).json().timestamp;
      assert.equal((await client.put('docs', 'a.txt', 'live now', 'text/plain')).status, 200);
    });
    after(() => svc.close());

    /** What a refused restore must leave alone: the live bytes and every version. */
    const fileState = async () => ({
      body: (await client.get('docs', 'a.txt')).body,
      versions: (await client.versions('docs', 'a.txt')).json().items.length,
    });
    const send = (method: string, path: string, headers: object = client.auth, body?: string) =>
      request(svc.baseUrl, path, { method, headers, body });
    const problemDetail = (response: HttpResponse) => String(response.json().detail);

    test('every route of the OpenAPI document, and the hidden ones, refuse an unknown query parameter, naming each', async () => {
      const openapi = (await request(svc.baseUrl, '/api/openapi.json')).json();
      const values: Record<string, string> = {
        channelRef: fixture.channel.id,
        folderName: 'docs',
        filename: 'a.txt',
        adminId: fixture.owner.id,
        address: fixture.ownerWallet.address,
        invitationId: 'inv_none',
        token: 'wai_none',
      };
      const documented = Object.entries(openapi.paths as Record<string, Record<string, unknown>>).flatMap(([template, operations]) =>
        Object.keys(operations).map((method): [string, string] => [
          method.toUpperCase(),
          template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]!)),
        ]),
      );
      assert.ok(documented.length >= 18, `${documented.length} documented operations`);
      const before = await fileState();
      for (const [method, path] of [...documented, ...HIDDEN]) {
        const upload = method === 'PUT' && path.includes('/files/');
        const refused = await send(method, `${path}?colour=blue&shade`, client.auth, upload ? 'replaced?' : undefined);
        if (method === 'HEAD') {
          // A HEAD answer has no body to name them in: its status and type are the GET's.
          assert.equal(refused.status, 400, `${method} ${path}`);
          assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
          continue;
        }
        assertProblem(refused, 400, 'VALIDATION_FAILED');
        assert.match(problemDetail(refused), /^Unknown query parameters: colour, shade; this operation takes /, `${method} ${path}`);
      }
      assert.deepEqual(await fileState(), before, 'the PUT, DELETE and restores wrote nothing');
      const head = await send('HEAD', '/healthz?verbose=1');
      assert.equal(head.status, 400, 'a HEAD route refuses as its GET does');
    });

    test('a query parameter of the wrong format is refused in words: what was sent, why, and an example that is right', async () => {
      // Every query parameter whose schema has a format, from the document: a new one is checked too.
      const openapi = (await request(svc.baseUrl, '/api/openapi.json')).json();
      const values: Record<string, string> = {
        channelRef: fixture.channel.id,
        folderName: 'docs',
        filename: 'a.txt',
        adminId: fixture.owner.id,
        address: fixture.ownerWallet.address,
        invitationId: 'inv_none',
        token: 'wai_none',
      };
      type Parameter = { in: string; name: string; schema: { format?: string } };
      const formatted = Object.entries(openapi.paths as Record<string, Record<string, { parameters?: Parameter[] }>>).flatMap(
        ([template, operations]) =>
          Object.entries(operations)
            .filter(([method]) => method !== 'head')
            .flatMap(([method, operation]) => {
              const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name]!));
              const takes = (operation.parameters ?? []).filter((parameter) => parameter.in === 'query');
              // A restore that the right value would start stays a plan.
              const dryRun = takes.some((parameter) => parameter.name === 'dryRun') ? '&dryRun=true' : '';
              return takes
                .filter((parameter) => parameter.schema.format !== undefined)
                .map((parameter) => ({ method: method.toUpperCase(), path, name: parameter.name, dryRun }));
            }),
      );
      assert.deepEqual(
        formatted.map(({ method, path, name }) => `${method} ${path.replace(fixture.channel.id, '{channelRef}')} ${name}`),
        [
          'POST /api/channels/{channelRef}/folders/docs/files/a.txt/restore at',
          'POST /api/channels/{channelRef}/folders/docs/restore at',
          'POST /api/channels/{channelRef}/restore at',
          'GET /api/channels/{channelRef}/changes fromAt',
          'GET /api/channels/{channelRef}/changes toAt',
          'GET /api/channels/{channelRef}/folders/docs/archive at',
          'GET /api/channels/{channelRef}/archive at',
        ],
      );
      const before = await fileState();
      for (const { method, path, name, dryRun } of formatted) {
        const where = `${method} ${path} ?${name}=`;
        const refused = await send(method, `${path}?${name}=yesterday${dryRun}`);
        assertProblem(refused, 400, 'VALIDATION_FAILED');
        const detail = problemDetail(refused);
        assert.doesNotMatch(detail, /must match format|querystring\//, where);
        // As a backup timestamp's refusal is worded: the parameter, what would do, what came.
        const worded = new RegExp(`^${name} must be an RFC 3339 date-time such as (\\S+) \\(got "yesterday": not an RFC 3339 date-time`);
        const example = worded.exec(detail)?.[1];
        assert.ok(example, `${where}: ${detail}`);
        // The example is right: the same request with it gets past the format.
        const accepted = await send(method, `${path}?${name}=${encodeURIComponent(example)}${dryRun}`);
        assert.doesNotMatch(accepted.body, /must be an RFC 3339 date-time/, `${where}${example}: ${accepted.body}`);
        // A value of the right shape but no real date says which part is wrong.
        const impossible = await send(method, `${path}?${name}=2026-02-30T10:00:00Z${dryRun}`);
        assert.match(
          problemDetail(impossible),
          new RegExp(`^${name} must be .*\\(got "2026-02-30T10:00:00Z": day 30 does not exist in 2026-02\\)$`),
          where,
        );
      }
      assert.deepEqual(await fileState(), before, 'nothing was restored');
    });

    test('a route with no query parameter says so; many unknown names are listed up to ten', async () => {
      const auth = await send('GET', '/api/auth/test?debug=1');
      assertProblem(auth, 400, 'VALIDATION_FAILED');
      assert.equal(problemDetail(auth), 'Unknown query parameter: debug; this operation takes no query parameter');
      assert.equal((await send('GET', '/api/auth/test')).status, 200, 'the contract request answers as before');
      const many = await send('GET', `/healthz?${Array.from({ length: 12 }, (_, i) => `p${i}=1`).join('&')}`);
      assertProblem(many, 400, 'VALIDATION_FAILED');
      assert.match(problemDetail(many), /^Unknown query parameters: p0, p1, p2, p3, p4, p5, p6, p7, p8, p9 and 2 more;/);
      const listing = await client.list('docs', '?limit=1&colour=blue');
      assert.equal(problemDetail(listing), 'Unknown query parameter: colour; this operation takes limit, cursor', 'limit is not unknown');
    });

    test('restore ?backup= (a typo of backupTimestamp) is refused and restores nothing', async () => {
      const before = await fileState();
      const typo = await client.restore('docs', 'a.txt', `?backup=${older}`);
      assertProblem(typo, 400, 'VALIDATION_FAILED');
      assert.match(problemDetail(typo), /Unknown query parameter: backup; this operation takes backupTimestamp, versionId, at/);
      assert.deepEqual(await fileState(), before);
      const both = await client.restore('docs', 'a.txt', `?backupTimestamp=${older}&versionId=ver_x`);
      assertProblem(both, 400, 'VALIDATION_FAILED');
      assert.match(problemDetail(both), /Give one of backupTimestamp, versionId or at/, 'known parameters are checked as before');
      assert.deepEqual(await fileState(), before);
    });

    test('a restore body with members, or other than an object, is refused and restores nothing', async () => {
      const before = await fileState();
      const named = await client.restore('docs', 'a.txt', '', JSON.stringify({ backupTimestamp: older }));
      assertProblem(named, 400, 'VALIDATION_FAILED');
      assert.match(problemDetail(named), /it has member backupTimestamp, which a restore does not read/);
      const two = await client.restore('docs', 'a.txt', `?backupTimestamp=${older}`, '{"dryRun":true,"at":"x"}');
      assert.match(problemDetail(two), /members dryRun, at/);
      for (const body of ['[]', '"x"', '1', 'true', '[{}]']) {
        assertProblem(await client.restore('docs', 'a.txt', `?backupTimestamp=${older}`, body), 400, 'VALIDATION_FAILED');
      }
      const text = await client.restore('docs', 'a.txt', `?backupTimestamp=${older}`, '{}', { 'Content-Type': 'text/plain' });
      assertProblem(text, 400, 'VALIDATION_FAILED');
      assert.deepEqual(await fileState(), before, 'live bytes and versions unchanged');
    });

    test('no body, an empty one, {} and null are accepted: the restore goes to the backup the query names', async () => {
      for (const [body, headers, from, expected] of [
        [undefined, {}, older, 'in the older backup'],
        ['', {}, newer, 'in the newer backup'],
        ['{}', {}, older, 'in the older backup'],
        ['null', {}, newer, 'in the newer backup'],
        [' ', { 'Content-Type': 'text/plain' }, older, 'in the older backup'],
        [undefined, { 'Content-Type': undefined }, newer, 'in the newer backup'],
      ] as const) {
        const restored = await client.restore('docs', 'a.txt', `?backupTimestamp=${from}`, body, headers);
        assert.equal(restored.status, 200, `${JSON.stringify(body)}: ${restored.body}`);
        assert.equal((await client.get('docs', 'a.txt')).body, expected, JSON.stringify(body));
      }
    });

    test('a folder or channel restore: null is accepted, members and unknown parameters refused, naming them', async () => {
      const scope = (path: string, query: string, body?: string) =>
        send('POST', `/api/channels/${fixture.channel.id}${path}${query}`, { ...client.auth, 'Content-Type': 'application/json' }, body);
      const plan = await scope('/folders/docs/restore', `?backupTimestamp=${older}&dryRun=true`, 'null');
      assert.equal(plan.status, 200, plan.body);
      assert.equal(plan.json().dryRun, true);
      const before = await fileState();
      const options = await scope('/restore', `?backupTimestamp=${older}`, '{"dryRun":true}');
      assertProblem(options, 400, 'VALIDATION_FAILED');
      assert.match(problemDetail(options), /member dryRun/);
      const misspelt = await scope('/restore', `?backupTimestamp=${older}&dry_run=true`);
      assertProblem(misspelt, 400, 'VALIDATION_FAILED');
      assert.match(problemDetail(misspelt), /^Unknown query parameter: dry_run; this operation takes backupTimestamp, at, dryRun, delete$/);
      assert.deepEqual(await fileState(), before, 'nothing restored');
    });

    test("a signed link's own parameters work; one more is refused", async () => {
      const link = new URL((await client.restore('docs', 'a.txt', `?backupTimestamp=${older}`)).body);
      assert.ok(link.searchParams.has('signature'), link.href);
      const download = await send('GET', `${link.pathname}${link.search}`, {});
      assert.equal(download.status, 200, download.body);
      assert.equal(download.body, 'in the older backup');
      assertProblem(await send('GET', `${link.pathname}${link.search}&inline=1`, {}), 400, 'VALIDATION_FAILED');
    });

    test("the console's pages keep any query (a browser's address); its other routes do not", async () => {
      const page = await send('GET', '/console/', {});
      for (const path of ['/console/?utm_source=newsletter', '/console/?']) {
        assert.equal((await send('GET', path, {})).status, page.status, path);
      }
      const redirect = await send('GET', '/console?tab=files', {});
      assert.equal(redirect.status, 308);
      assert.equal(redirect.headers.location, '/console/?tab=files');
      assert.equal((await send('GET', '/?from=bookmark', {})).status, 302);
      assertProblem(await send('GET', '/console/assets/app.js?v=2', {}), 400, 'VALIDATION_FAILED');
    });
  });
}
