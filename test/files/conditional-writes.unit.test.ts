import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../src/errors/app-error.ts';
import { checkPrecondition } from '../../src/files/preconditions.ts';
import { matchPrecondition, uploadPrecondition } from '../../src/http/channels/support/condition-headers.ts';
import type { FileRecord } from '../../src/model/files.ts';
import { assertContractHeaders, assertProblem } from '../helpers/assertions.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const tagOf = (content: string) => `"${sha256(content)}"`;

describe('conditional write headers, as parsed and checked', () => {
  const file = (content: string): FileRecord => ({
    channelId: 'chn_x',
    folder: 'f',
    filename: 'a',
    size: content.length,
    sha256: sha256(content),
    contentType: 'text/plain',
    updatedAt: 0,
    blobKey: 'objects/chn_x/00/0',
  });
  const refused = (error: unknown) => error instanceof AppError && error.code === 'PRECONDITION_FAILED';

  test('lists of strong and weak tags, * and empty list elements; a comma may sit inside a tag', () => {
    assert.deepEqual(uploadPrecondition({}), {});
    assert.deepEqual(uploadPrecondition({ 'if-match': ' * ' }), { ifMatch: 'any' });
    assert.deepEqual(uploadPrecondition({ 'if-none-match': '*' }), { ifNoneMatch: 'any' });
    assert.deepEqual(uploadPrecondition({ 'if-match': '"a", W/"b" ,, "c,d"', 'if-none-match': '""' }), {
      ifMatch: [
        { weak: false, opaque: '"a"' },
        { weak: true, opaque: '"b"' },
        { weak: false, opaque: '"c,d"' },
      ],
      ifNoneMatch: [{ weak: false, opaque: '""' }],
    });
    assert.deepEqual(matchPrecondition({ 'if-match': '"a"' }, 'DELETE'), { ifMatch: [{ weak: false, opaque: '"a"' }] });
  });

  test('anything else is VALIDATION_FAILED; If-None-Match is refused where only If-Match is supported', () => {
    for (const value of ['', 'abc', '*, "a"', '"a" "b"', '"a', 'w/"a"', 'W/ "a"', '"a"x', ', ,']) {
      assert.throws(
        () => uploadPrecondition({ 'if-match': value }),
        (error: unknown) => error instanceof AppError && error.code === 'VALIDATION_FAILED',
        JSON.stringify(value),
      );
    }
    assert.throws(
      () => matchPrecondition({ 'if-none-match': '*' }, 'DELETE'),
      (error: unknown) => error instanceof AppError && error.code === 'VALIDATION_FAILED' && /not supported on DELETE/.test(error.message),
    );
  });

  test('If-Match compares strongly, If-None-Match weakly; a missing file meets no If-Match', () => {
    const current = file('now');
    const strong = { weak: false, opaque: tagOf('now') };
    const weak = { weak: true, opaque: tagOf('now') };
    const other = { weak: false, opaque: tagOf('other') };
    checkPrecondition({}, current);
    checkPrecondition({}, undefined);
    checkPrecondition({ ifMatch: [other, strong] }, current);
    checkPrecondition({ ifMatch: 'any' }, current);
    assert.throws(() => checkPrecondition({ ifMatch: [weak] }, current), refused);
    assert.throws(() => checkPrecondition({ ifMatch: [other] }, current), refused);
    assert.throws(() => checkPrecondition({ ifMatch: 'any' }, undefined), refused);
    checkPrecondition({ ifNoneMatch: 'any' }, undefined);
    checkPrecondition({ ifNoneMatch: [other] }, current);
    checkPrecondition({ ifNoneMatch: [strong] }, undefined);
    assert.throws(() => checkPrecondition({ ifNoneMatch: 'any' }, current), refused);
    assert.throws(() => checkPrecondition({ ifNoneMatch: [weak] }, current), refused);
    // If-Match first: a met If-Match does not excuse a matching If-None-Match.
    assert.throws(() => checkPrecondition({ ifMatch: [strong], ifNoneMatch: [strong] }, current), refused);
  });
});

for (const setup of FILE_SETUPS) {
  describe(`conditional writes (${setup})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let client: FilesClient;

    before(async () => {
      svc = await startTestService(setup, { env: { CORS_ORIGINS: 'https://app.example.com' } });
      fixture = await createTenantFixture(svc.service.store, 'Conditional');
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    });
    after(() => svc.close());

    /** The refused events of one action on one file, newest first. */
    const refusals = async (action: string, folder: string, filename: string) => {
      const answer = await client.audit(`?action=${action}&result=refused&folder=${folder}&filename=${encodeURIComponent(filename)}`);
      assert.equal(answer.status, 200, answer.body);
      return answer.json().items as { code: string; adminId: string }[];
    };

    const assertFailed = (response: Awaited<ReturnType<FilesClient['put']>>, detail: RegExp) => {
      assertProblem(response, 412, 'PRECONDITION_FAILED');
      assert.match(response.json().detail, detail);
    };

    test('PUT answers the ETag of what it wrote; If-None-Match: * creates only', async () => {
      const created = await client.put('c', 'new.txt', 'one', 'text/plain', { 'If-None-Match': '*' });
      assert.equal(created.status, 201, created.body);
      assert.equal(created.headers.etag, tagOf('one'));
      assertContractHeaders(created);

      const again = await client.put('c', 'new.txt', 'two', 'text/plain', { 'If-None-Match': '*' });
      assertFailed(again, new RegExp(`current ETag is ${tagOf('one')}`));
      assert.equal(again.json().currentEtag, tagOf('one'));
      assert.equal((await client.get('c', 'new.txt')).body, 'one', 'nothing changed');
      assert.equal((await client.versions('c', 'new.txt')).json().items.length, 0, 'nothing kept either');

      const refused = await refusals('upload', 'c', 'new.txt');
      assert.deepEqual(
        refused.map((event) => [event.code, event.adminId]),
        [['PRECONDITION_FAILED', fixture.owner.id]],
      );
    });

    test('PUT with If-Match replaces only the listed content, compared strongly', async () => {
      const first = await client.put('c', 'doc.txt', 'v1');
      const etag = first.headers.etag as string;
      assertFailed(await client.put('c', 'doc.txt', 'x', 'text/plain', { 'If-Match': `W/${etag}` }), /current ETag is/);
      assertFailed(await client.put('c', 'doc.txt', 'x', 'text/plain', { 'If-Match': tagOf('stale') }), new RegExp(etag));
      assert.equal((await client.get('c', 'doc.txt')).body, 'v1');

      const second = await client.put('c', 'doc.txt', 'v2', 'text/plain', { 'If-Match': `${tagOf('stale')}, ${etag}` });
      assert.equal(second.status, 200, second.body);
      assert.equal(second.headers.etag, tagOf('v2'));
      assert.equal((await client.put('c', 'doc.txt', 'v3', 'text/plain', { 'If-Match': '*' })).status, 200);

      const missing = await client.put('c', 'absent.txt', 'x', 'text/plain', { 'If-Match': '*' });
      assertFailed(missing, /does not exist/);
      assert.equal(missing.json().currentEtag, null);
      assertProblem(await client.get('c', 'absent.txt'), 404, 'FILE_NOT_FOUND');
      assert.equal((await refusals('upload', 'c', 'doc.txt')).length, 2);
    });

    test('PUT with If-None-Match tags: refused when the live ETag is listed, weakly or not', async () => {
      await client.put('c', 'none.txt', 'kept');
      assertFailed(await client.put('c', 'none.txt', 'x', 'text/plain', { 'If-None-Match': `W/${tagOf('kept')}` }), /If-None-Match/);
      assertFailed(await client.put('c', 'none.txt', 'x', 'text/plain', { 'If-None-Match': tagOf('kept') }), /If-None-Match/);
      assert.equal((await client.put('c', 'none.txt', 'new', 'text/plain', { 'If-None-Match': tagOf('other') })).status, 200);
      assert.equal((await client.get('c', 'none.txt')).body, 'new');
    });

    test('DELETE with If-Match; If-None-Match there is a 400', async () => {
      await client.put('c', 'gone.txt', 'bye');
      assertFailed(await client.delete('c', 'gone.txt', { 'If-Match': tagOf('other') }), new RegExp(tagOf('bye')));
      assert.equal((await client.get('c', 'gone.txt')).body, 'bye', 'nothing deleted');
      const unsupported = await client.delete('c', 'gone.txt', { 'If-None-Match': '*' });
      assertProblem(unsupported, 400, 'VALIDATION_FAILED');
      assert.match(unsupported.json().detail, /If-None-Match is not supported/);
      assert.equal((await client.versions('c', 'gone.txt')).json().items.length, 0);

      assert.equal((await client.delete('c', 'gone.txt', { 'If-Match': tagOf('bye') })).status, 204);
      assertProblem(await client.get('c', 'gone.txt'), 404, 'FILE_NOT_FOUND');
      // Without the file, If-Match cannot be met: 412 rather than 404.
      assertFailed(await client.delete('c', 'gone.txt', { 'If-Match': '*' }), /does not exist/);
      assertProblem(await client.delete('c', 'gone.txt'), 404, 'FILE_NOT_FOUND');
      assert.deepEqual(
        (await refusals('delete', 'c', 'gone.txt')).map((event) => event.code),
        ['FILE_NOT_FOUND', 'PRECONDITION_FAILED', 'PRECONDITION_FAILED'],
      );
    });

    test('a restore with If-Match; If-None-Match there is a 400; without them it answers as ever', async () => {
      await client.put('r', 'plan.txt', 'backed up');
      assert.equal((await client.backup()).status, 201);
      await client.put('r', 'plan.txt', 'edited');

      assertFailed(await client.restore('r', 'plan.txt', '', undefined, { 'If-Match': tagOf('backed up') }), new RegExp(tagOf('edited')));
      assert.equal((await client.get('r', 'plan.txt')).body, 'edited', 'nothing restored');
      assertProblem(await client.restore('r', 'plan.txt', '', '{}', { 'If-None-Match': '*' }), 400, 'VALIDATION_FAILED');

      const restored = await client.restore('r', 'plan.txt', '', '{}', { 'If-Match': tagOf('edited') });
      assert.equal(restored.status, 200, restored.body);
      assert.equal(restored.headers['content-type'], 'text/plain;charset=ISO-8859-1');
      assert.equal((await client.get('r', 'plan.txt')).body, 'backed up');
      const undo = await client.restore('r', 'plan.txt', `?versionId=${restored.headers['x-kept-version-id']}`);
      assert.equal(undo.status, 200, undo.body);
      assert.equal((await client.get('r', 'plan.txt')).body, 'edited');
      assert.deepEqual(
        (await refusals('restore', 'r', 'plan.txt')).map((event) => event.code),
        ['PRECONDITION_FAILED'],
        'the If-None-Match is refused unaudited, as a malformed body is',
      );

      // A deleted file has no ETag: If-Match: * cannot be met, and nothing is revived.
      assert.equal((await client.delete('r', 'plan.txt')).status, 204);
      assertFailed(await client.restore('r', 'plan.txt', '', undefined, { 'If-Match': '*' }), /does not exist/);
      assertProblem(await client.get('r', 'plan.txt'), 404, 'FILE_NOT_FOUND');
      assert.equal((await client.restore('r', 'plan.txt', '')).status, 200);
    });

    test('a malformed If-Match or If-None-Match is a 400 and changes nothing', async () => {
      await client.put('c', 'strict.txt', 'same');
      for (const headers of [{ 'If-Match': 'no-quotes' }, { 'If-Match': `*, ${tagOf('same')}` }, { 'If-None-Match': 'W/' }]) {
        const answer = await client.put('c', 'strict.txt', 'changed', 'text/plain', headers);
        assertProblem(answer, 400, 'VALIDATION_FAILED');
        assert.match(answer.json().detail, /entity tags/);
      }
      assertProblem(await client.delete('c', 'strict.txt', { 'If-Match': '"a' }), 400, 'VALIDATION_FAILED');
      assert.equal((await client.get('c', 'strict.txt')).body, 'same');
    });

    test('concurrent PUTs with the same If-Match: exactly one wins, the others get 412', async () => {
      const original = await client.put('race', 'shared.txt', 'original');
      const etag = original.headers.etag as string;
      const contenders = Array.from({ length: 6 }, (_, i) => `contender ${i}`);
      const answers = await Promise.all(
        contenders.map((body) => client.put('race', 'shared.txt', body, 'text/plain', { 'If-Match': etag })),
      );
      const won = answers.filter((answer) => answer.status === 200);
      assert.equal(won.length, 1, answers.map((answer) => answer.status).join());
      for (const answer of answers.filter((a) => a !== won[0])) assertProblem(answer, 412, 'PRECONDITION_FAILED');
      const winner = contenders[answers.indexOf(won[0]!)]!;
      assert.equal((await client.get('race', 'shared.txt')).body, winner);
      const versions = (await client.versions('race', 'shared.txt')).json().items as { sha256: string }[];
      assert.deepEqual(
        versions.map((v) => v.sha256),
        [sha256('original')],
        'one replacement, one kept version',
      );
      assert.equal((await refusals('upload', 'race', 'shared.txt')).length, contenders.length - 1);

      // And deletes: of two with one If-Match, one deletes, the other finds the file gone.
      const next = tagOf(winner);
      const deletes = await Promise.all([0, 1].map(() => client.delete('race', 'shared.txt', { 'If-Match': next })));
      assert.deepEqual(deletes.map((answer) => answer.status).sort(), [204, 412]);
    });

    test('a page of another origin may send the conditions and read the ETag once CORS_EXTRA_* say so (the contract lists neither); the OpenAPI document describes them', async (t) => {
      const preflightOf = (on: TestService) =>
        request(on.baseUrl, client.filePath('c', 'x.txt'), {
          method: 'OPTIONS',
          headers: {
            Origin: 'https://app.example.com',
            'Access-Control-Request-Method': 'PUT',
            'Access-Control-Request-Headers': 'if-match, if-none-match, x-wal',
          },
        });
      assert.equal((await preflightOf(svc)).status, 403, "by default the contract's list, without If-Match");
      const opened = await startTestService(setup, {
        env: {
          CORS_ORIGINS: 'https://app.example.com',
          CORS_EXTRA_ALLOW_HEADERS: 'If-Match,If-None-Match',
          CORS_EXTRA_EXPOSE_HEADERS: 'ETag',
        },
      });
      t.after(() => opened.close());
      const own = await createTenantFixture(opened.service.store, 'Cross-origin');
      const crossOrigin = new FilesClient(opened.baseUrl, own.channel.id, {
        ...(await signIn(own.ownerWallet, opened.config.auth.domains[0]!)),
      });
      const preflight = await preflightOf(opened);
      assert.equal(preflight.status, 200, preflight.body);
      assert.equal(preflight.headers['access-control-allow-origin'], 'https://app.example.com');
      const put = await crossOrigin.put('c', 'cors.txt', 'seen', 'text/plain', { Origin: 'https://app.example.com' });
      assert.equal(put.headers.etag, tagOf('seen'));
      assert.ok(String(put.headers['access-control-expose-headers']).split(', ').includes('ETag'));
      const openapi = (await request(svc.baseUrl, '/api/openapi.json')).json();
      const file = openapi.paths['/api/channels/{channelRef}/folders/{folderName}/files/{filename}'];
      const restore = openapi.paths['/api/channels/{channelRef}/folders/{folderName}/files/{filename}/restore'].post;
      const headerParams = (operation: { parameters: { in: string; name: string }[] }) =>
        operation.parameters.filter((p) => p.in === 'header').map((p) => p.name);
      assert.deepEqual(headerParams(file.put), ['if-match', 'if-none-match']);
      assert.deepEqual(headerParams(file.delete), ['if-match']);
      assert.deepEqual(headerParams(restore), ['if-match']);
      for (const operation of [file.put, file.delete, restore]) assert.ok(operation.responses['412'], JSON.stringify(operation.responses));
      assert.equal(file.put.responses['200'].headers?.ETag?.schema?.type, 'string', JSON.stringify(file.put.responses['200']));
    });
  });
}
