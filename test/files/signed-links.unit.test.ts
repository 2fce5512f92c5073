import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LinkSigner } from '../../src/files/signed-links.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const SECRET = 'a-test-secret-shared-by-every-instance-0123456789';

for (const engine of ENGINES) {
  describe(`FILE_URL_SIGNING=true (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let client: FilesClient;

    before(async () => {
      svc = await startTestService(engine, { env: { FILE_URL_SIGNING: 'true', FILE_URL_SECRET: SECRET, FILE_URL_TTL: '120' } });
      fixture = await createTenantFixture(svc.service.store, 'Links');
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
      await client.put('docs', 'secret plan.pdf', '%PDF-1.7 the backup', 'application/pdf');
      await nextSecond();
      await client.backup();
      await client.put('docs', 'secret plan.pdf', '%PDF-1.7 changed');
    });
    after(() => svc.close());

    const restoreLink = async () => {
      const restored = await client.restore('docs', 'secret plan.pdf', '');
      assert.equal(restored.status, 200, restored.body);
      assert.equal(restored.headers['content-type'], 'text/plain;charset=ISO-8859-1');
      return new URL(restored.body);
    };
    const pathAndQuery = (url: URL) => `${url.pathname}${url.search}`;

    test('the restore answers a signed link that downloads without wallet headers', async () => {
      const link = await restoreLink();
      assert.equal(link.pathname, `/api/channels/${fixture.channel.id}/folders/docs/files/secret%20plan.pdf`);
      assert.match(link.search, /^\?expires=\d+&signature=[\w-]+$/);
      const expires = Number(link.searchParams.get('expires'));
      const now = Math.floor(Date.now() / 1000);
      assert.ok(expires > now + 100 && expires <= now + 121, 'FILE_URL_TTL seconds ahead');
      const download = await request(svc.baseUrl, pathAndQuery(link));
      assert.equal(download.status, 200, download.body);
      assert.equal(download.body, '%PDF-1.7 the backup');
      assert.match(String(download.headers['content-disposition']), /^attachment;/);
      assert.equal(download.headers['content-security-policy'], 'sandbox');
      const partial = await request(svc.baseUrl, pathAndQuery(link), { headers: { Range: 'bytes=0-3' } });
      assert.equal(partial.status, 206);
      assert.equal(partial.body, '%PDF');
    });

    test('tampered, foreign, incomplete or expired links are refused with 403', async () => {
      const link = await restoreLink();
      const signature = link.searchParams.get('signature')!;
      const expires = link.searchParams.get('expires')!;
      const variants = [
        `${link.pathname}?expires=${Number(expires) + 1}&signature=${signature}`,
        `${link.pathname}?expires=${expires}&signature=${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`,
        `${link.pathname.replace('secret%20plan.pdf', 'other.pdf')}?expires=${expires}&signature=${signature}`,
        `/api/channels/${fixture.channel.id}/folders/docs/files/secret%20plan.pdf?expires=${expires}`,
        `/api/channels/${fixture.channel.id}/folders/docs/files/secret%20plan.pdf?signature=${signature}`,
        `/api/channels/${fixture.channel.id}/folders/docs/files/secret%20plan.pdf?expires=abc&signature=${signature}`,
      ];
      for (const variant of variants) assertProblem(await request(svc.baseUrl, variant), 403, 'LINK_INVALID');

      const foreign = new LinkSigner('another-secret-that-is-long-enough-0123456789', 120).sign(link.pathname, Date.now());
      assertProblem(await request(svc.baseUrl, `${link.pathname}?${foreign}`), 403, 'LINK_INVALID');
      const expired = new LinkSigner(SECRET, 1).sign(link.pathname, Date.now() - 10_000);
      const refused = await request(svc.baseUrl, `${link.pathname}?${expired}`);
      assertProblem(refused, 403, 'LINK_INVALID');
      assert.match(refused.json().detail, /expired/);
    });

    test('a signed-link download is logged with its signature redacted, however the name of the parameter is spelt', async () => {
      const link = await restoreLink();
      const signature = link.searchParams.get('signature')!;
      const expires = link.searchParams.get('expires')!;
      const before = svc.logs.length;
      // Each spelling Fastify's query parser decodes to `signature`: the download takes each as the link's signature.
      const spellings = ['signature', '%73ignature', '%73%69%67%6E%61%74%75%72%65', 'sig%6eature'];
      for (const name of spellings) {
        const download = await request(svc.baseUrl, `${link.pathname}?expires=${expires}&${name}=${signature}`);
        assert.equal(download.status, 200, `${name}: ${download.body}`);
      }
      // Another letter case is another (unknown) parameter to the router, refused: still no signature in its line.
      assertProblem(await request(svc.baseUrl, `${link.pathname}?expires=${expires}&SIGNATURE=${signature}`), 400, 'VALIDATION_FAILED');
      const requested = [...spellings, 'SIGNATURE'].map((name) => `${link.pathname}?expires=${expires}&${name}=[redacted]`);
      const logged = () =>
        svc.logs
          .slice(before)
          .map((line) => JSON.parse(line) as { msg: string; url?: string })
          .filter((line) => line.msg === 'request completed')
          .map((line) => line.url);
      // The line is written once the answer is sent, which may be a moment after the client has it.
      for (let tries = 0; logged().length < requested.length && tries < 100; tries++)
        await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(logged(), requested);
      assert.ok(!svc.logs.slice(before).some((line) => line.includes(signature)), 'the signature is in no line');
    });

    test('the link signs one path only: it does not open the versions or other files', async () => {
      const link = await restoreLink();
      // Only the download declares expires and signature: elsewhere they are unknown parameters, refused before anything else.
      for (const refused of [
        await request(svc.baseUrl, `${link.pathname}/versions${link.search}`),
        await request(svc.baseUrl, pathAndQuery(link), { method: 'DELETE' }),
      ]) {
        assertProblem(refused, 400, 'VALIDATION_FAILED');
        assert.match(refused.json().detail, /^Unknown query parameters: expires, signature;/);
      }
      assert.equal((await request(svc.baseUrl, `${link.pathname}/versions`)).status, 401, 'without them: wallet headers needed');
      assert.equal((await request(svc.baseUrl, link.pathname, { method: 'DELETE' })).status, 401);
      assert.equal((await client.get('docs', 'secret plan.pdf')).status, 200, 'the file was not deleted');
    });

    test('without a link the download still needs wallet headers', async () => {
      assertProblem(
        await request(svc.baseUrl, `/api/channels/${fixture.channel.id}/folders/docs/files/secret%20plan.pdf`),
        401,
        'AUTH_HEADERS_MISSING',
      );
      assert.equal((await client.get('docs', 'secret plan.pdf')).status, 200);
    });
  });
}

describe('configuration of signed links', () => {
  test('FILE_URL_SIGNING=true without a long FILE_URL_SECRET refuses to start', async () => {
    await assert.rejects(startTestService('sqlite', { env: { FILE_URL_SIGNING: 'true' } }), /FILE_URL_SECRET/);
    await assert.rejects(startTestService('sqlite', { env: { FILE_URL_SIGNING: 'true', FILE_URL_SECRET: 'short' } }), /FILE_URL_SECRET/);
  });
});
