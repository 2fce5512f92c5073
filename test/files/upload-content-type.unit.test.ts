import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { uploadContentType } from '../../src/files/upload-content-type.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient } from '../helpers/files.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

/**
 * Issue 18, item 4: `curl --data-binary @file` labels a file application/x-www-form-urlencoded and
 * `curl -F file=@x` wraps it in a form; neither is the file's type, and the wrapper is not its bytes.
 */
describe('the type an upload is stored with', () => {
  test('the type sent, without parameters; none or the form default: the name’s extension, else octet-stream', () => {
    assert.equal(uploadContentType('Text/Plain; charset=utf-8', 'report.pdf'), 'text/plain', 'a type given is kept');
    assert.equal(uploadContentType('application/octet-stream', 'report.pdf'), 'application/octet-stream');
    for (const none of [undefined, '', 'application/x-www-form-urlencoded', 'Application/X-WWW-Form-Urlencoded; charset=utf-8']) {
      assert.equal(uploadContentType(none, 'report.pdf'), 'application/pdf', String(none));
      assert.equal(uploadContentType(none, 'Photo.JPG'), 'image/jpeg', String(none));
      assert.equal(uploadContentType(none, 'archive.tar.gz'), 'application/gzip', String(none));
      assert.equal(uploadContentType(none, 'README'), 'application/octet-stream', String(none));
      assert.equal(uploadContentType(none, 'data.unknownext'), 'application/octet-stream', String(none));
    }
  });

  test('a form upload is refused with 415, saying what to send instead', () => {
    for (const form of ['multipart/form-data; boundary=------------------------abc', 'Multipart/Form-Data']) {
      assert.throws(
        () => uploadContentType(form, 'x.txt'),
        (error: Error & { code?: string }) =>
          error.code === 'UNSUPPORTED_MEDIA_TYPE' && /--data-binary @file \(or -T file\)/.test(error.message),
      );
    }
  });
});

for (const engine of ENGINES) {
  describe(`uploads without a type, and form uploads, over HTTP (${engine})`, () => {
    let svc: TestService;
    let client: FilesClient;

    before(async () => {
      svc = await startTestService(engine);
      const fixture = await createTenantFixture(svc.service.store, 'Types');
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    });
    after(() => svc.close());

    test("curl's form default is no type: stored and downloaded as the name's type, the bytes as sent", async () => {
      const bytes = Buffer.from('%PDF-1.7 body=with&ampersands');
      const put = await client.put('docs', 'report.pdf', bytes, 'application/x-www-form-urlencoded');
      assert.equal(put.status, 201, put.body);
      assert.equal(put.json().contentType, 'application/pdf');
      const download = await client.get('docs', 'report.pdf');
      assert.equal(download.headers['content-type'], 'application/pdf');
      assert.deepEqual(download.bytes, bytes);
      const untyped = await client.put('docs', 'notes', 'x=1', 'application/x-www-form-urlencoded');
      assert.equal(untyped.json().contentType, 'application/octet-stream');
      const noHeader = await client.put('docs', 'table.csv', 'a,b\n1,2\n', 'ignored', { 'Content-Type': undefined });
      assert.equal(noHeader.json().contentType, 'text/csv');
    });

    test('a multipart/form-data upload is refused with 415 and stores nothing', async () => {
      assert.equal((await client.put('docs', 'kept.txt', 'the live bytes', 'text/plain')).status, 201);
      const boundary = '------------------------d74496d66958873e';
      const form = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x"\r\nContent-Type: application/octet-stream\r\n\r\n8 bytes!\r\n--${boundary}--\r\n`;
      for (const name of ['kept.txt', 'new.txt']) {
        const refused = await client.put('docs', name, form, `multipart/form-data; boundary=${boundary}`);
        assertProblem(refused, 415, 'UNSUPPORTED_MEDIA_TYPE');
        assert.match(refused.json().detail, /curl --data-binary @file \(or -T file\)/);
      }
      assert.equal((await client.get('docs', 'kept.txt')).body, 'the live bytes');
      assert.equal((await client.versions('docs', 'kept.txt')).json().items.length, 0, 'no version kept: nothing was replaced');
      assertProblem(await client.get('docs', 'new.txt'), 404, 'FILE_NOT_FOUND');
    });
  });
}
