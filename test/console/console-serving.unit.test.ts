import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_CONSOLE_DIR } from '../../src/http/console/assets.ts';
import { assertContractHeaders, assertProblem } from '../helpers/assertions.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The URLs index.html names (the build puts the hashed names there). */
function assetUrls(html: string): { script: string; style: string; icon: string } {
  const find = (re: RegExp) => {
    const match = re.exec(html);
    assert.ok(match, `index.html has no ${re}`);
    return match[1]!;
  };
  return {
    script: find(/<script type="module" src="(\/console\/assets\/main-[A-Z0-9]+\.js)">/),
    style: find(/<link rel="stylesheet" href="(\/console\/assets\/main-[A-Z0-9]+\.css)"/),
    icon: find(/<link rel="icon" type="image\/svg\+xml" href="(\/console\/assets\/icon-[0-9a-f]+\.svg)"/),
  };
}

/** The console's own headers: the strict policy and the security headers that do not contradict it. */
function assertConsoleHeaders(response: HttpResponse): void {
  assert.equal(response.headers['content-security-policy'], CSP, `CSP on ${response.url}`);
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  assert.equal(response.headers['x-frame-options'], 'DENY');
}

function assertCachedFile(response: HttpResponse, cacheControl: string): void {
  assertConsoleHeaders(response);
  assert.equal(response.headers['cache-control'], cacheControl);
  assert.equal(response.headers.pragma, undefined, 'no Pragma: no-cache on a cacheable file');
  assert.equal(response.headers.expires, undefined, 'no Expires: 0 on a cacheable file');
  assert.match(String(response.headers.etag), /^"[A-Za-z0-9_-]{20,}"$/);
}

describe('the console, served', () => {
  let svc: TestService;
  let html: string;

  before(async () => {
    assert.ok(existsSync(path.join(DEFAULT_CONSOLE_DIR, 'index.html')), 'dist/console is missing: run `npm run build` first');
    svc = await startTestService('sqlite');
  });
  after(() => svc.close());

  test('GET /console/: the built index.html, revalidated each time (no-cache), under the strict CSP', async () => {
    const response = await request(svc.baseUrl, '/console/');
    assert.equal(response.status, 200, response.body);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assertCachedFile(response, 'no-cache');
    html = response.body;
    assert.equal(html, await readFile(path.join(DEFAULT_CONSOLE_DIR, 'index.html'), 'utf8'));
    assert.doesNotMatch(html, /%(SCRIPT|STYLE|ICON)%/, 'every placeholder is replaced');
    assetUrls(html);

    const again = await request(svc.baseUrl, '/console/', { headers: { 'If-None-Match': response.headers.etag } });
    assert.equal(again.status, 304);
    assert.equal(again.body, '');
    assertCachedFile(again, 'no-cache');
  });

  test("GET /console/invite (an invitation's link, its token in the fragment): the same index.html, no-cache", async () => {
    const response = await request(svc.baseUrl, '/console/invite');
    assert.equal(response.status, 200, response.body);
    assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
    assertCachedFile(response, 'no-cache');
    assert.equal(response.body, await readFile(path.join(DEFAULT_CONSOLE_DIR, 'index.html'), 'utf8'));
  });

  test('the hashed files: their content type, cached for a year, immutable, with an ETag', async () => {
    html ??= (await request(svc.baseUrl, '/console/')).body;
    const urls = assetUrls(html);
    const expected: [string, string][] = [
      [urls.script, 'text/javascript; charset=utf-8'],
      [urls.style, 'text/css; charset=utf-8'],
      [urls.icon, 'image/svg+xml'],
      [`${urls.script}.map`, 'application/json'],
    ];
    for (const [url, type] of expected) {
      const response = await request(svc.baseUrl, url);
      assert.equal(response.status, 200, `${url}: ${response.body}`);
      assert.equal(response.headers['content-type'], type, url);
      assertCachedFile(response, IMMUTABLE);
      const onDisk = await readFile(path.join(DEFAULT_CONSOLE_DIR, 'assets', path.basename(url)));
      assert.ok(response.bytes.equals(onDisk), `${url} is the built file`);
      assert.equal(Number(response.headers['content-length']), onDisk.length);
    }
    const script = await request(svc.baseUrl, urls.script);
    // ok(includes), not match: a failure would print the whole bundle.
    assert.ok(script.body.includes('Who am I'), 'the bundle holds the page');
    assert.ok(script.body.endsWith(`//# sourceMappingURL=${urls.script}.map\n`), 'the bundle names its source map');
  });

  test('If-None-Match with the ETag (also weak, also in a list, also *): 304 without a body; another tag: 200', async () => {
    const { script } = assetUrls(html ?? (await request(svc.baseUrl, '/console/')).body);
    const first = await request(svc.baseUrl, script);
    const etag = String(first.headers.etag);
    for (const tag of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await request(svc.baseUrl, script, { headers: { 'If-None-Match': tag } });
      assert.equal(response.status, 304, tag);
      assert.equal(response.body, '', tag);
      assert.equal(response.headers.etag, etag, tag);
      assertCachedFile(response, IMMUTABLE);
    }
    const changed = await request(svc.baseUrl, script, { headers: { 'If-None-Match': '"not-this-one"' } });
    assert.equal(changed.status, 200);
    assert.ok(changed.bytes.equals(first.bytes));
  });

  test('HEAD: the headers of GET, no body', async () => {
    const { script } = assetUrls(html ?? (await request(svc.baseUrl, '/console/')).body);
    for (const url of ['/console/', script]) {
      const get = await request(svc.baseUrl, url);
      const head = await request(svc.baseUrl, url, { method: 'HEAD' });
      assert.equal(head.status, 200, url);
      assert.equal(head.body, '', url);
      for (const name of ['content-type', 'content-length', 'cache-control', 'etag', 'content-security-policy']) {
        assert.equal(head.headers[name], get.headers[name], `${url}: ${name}`);
      }
    }
  });

  test('/console → 308 /console/ (the query kept); / → 302 /console/', async () => {
    const bare = await request(svc.baseUrl, '/console');
    assert.equal(bare.status, 308);
    assert.equal(bare.headers.location, '/console/');
    assertConsoleHeaders(bare);
    const withQuery = await request(svc.baseUrl, '/console?tab=files');
    assert.equal(withQuery.status, 308);
    assert.equal(withQuery.headers.location, '/console/?tab=files');
    const root = await request(svc.baseUrl, '/');
    assert.equal(root.status, 302);
    assert.equal(root.headers.location, '/console/');
    assertConsoleHeaders(root);
    const rootHead = await request(svc.baseUrl, '/', { method: 'HEAD' });
    assert.equal(rootHead.status, 302);
  });

  test('an unknown asset or console page: 404 in the one problem format, under the CSP', async () => {
    for (const url of ['/console/assets/main-NOTBUILT.js', '/console/assets/..%2Findex.html', '/console/assets/a/b.js', '/console/nope']) {
      const response = await request(svc.baseUrl, url);
      assertProblem(response, 404, 'NOT_FOUND');
      assert.equal(response.headers['content-security-policy'], CSP, url);
    }
  });

  test('the API keeps its own headers exactly: GET /api/auth/nonce has no CSP and no caching', async () => {
    const response = await request(svc.baseUrl, '/api/auth/nonce');
    assert.equal(response.status, 200, response.body);
    assertContractHeaders(response);
    assert.equal(response.headers['content-security-policy'], undefined);
    assert.equal(response.headers.etag, undefined);
  });

  test('the console is not in the OpenAPI document', async () => {
    const document = (await request(svc.baseUrl, '/api/openapi.json')).json();
    const paths = Object.keys(document.paths);
    assert.ok(paths.includes('/api/auth/nonce'), 'the document lists the API');
    assert.deepEqual(
      paths.filter((p) => p === '/' || p.startsWith('/console')),
      [],
    );
  });
});

describe('the console, never built', () => {
  let svc: TestService;
  let emptyDir: string;

  before(async () => {
    emptyDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-console-'));
    svc = await startTestService('sqlite', { consoleDir: emptyDir });
  });
  after(async () => {
    await svc.close();
    await rm(emptyDir, { recursive: true, force: true });
  });

  test('the service starts; every console path answers 503 CONSOLE_NOT_BUILT, saying to run npm run build', async () => {
    for (const url of ['/console/', '/console/assets/main-ABCDEFGH.js', '/console/anything']) {
      const response = await request(svc.baseUrl, url);
      assertProblem(response, 503, 'CONSOLE_NOT_BUILT');
      assert.match(response.json().detail, /npm run build/);
      assert.equal(response.headers['content-security-policy'], CSP, url);
    }
    assert.equal((await request(svc.baseUrl, '/console')).status, 308);
  });

  test('the API works as ever', async () => {
    const response = await request(svc.baseUrl, '/api/auth/nonce');
    assert.equal(response.status, 200, response.body);
    assertContractHeaders(response);
  });
});
