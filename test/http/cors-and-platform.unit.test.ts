import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { headerLines, request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

describe('CORS, health, OpenAPI', () => {
  let svc: TestService;
  let fixture: TenantFixture;
  let domain: string;

  before(async () => {
    svc = await startTestService('sqlite', { env: { CORS_ORIGINS: 'https://app.example.com, https://*.tenant.example' } });
    domain = new URL(svc.baseUrl).host;
    fixture = await createTenantFixture(svc.service.store);
  });
  after(() => svc.close());

  test('an allowed origin is echoed on a real request', async () => {
    const headers = await signIn(fixture.ownerWallet, domain);
    const response = await request(svc.baseUrl, '/api/auth/test', { headers: { ...headers, Origin: 'https://app.example.com' } });
    assert.equal(response.status, 200, response.body);
    assert.equal(response.headers['access-control-allow-origin'], 'https://app.example.com');
    assert.equal(response.headers['access-control-allow-credentials'], 'true');
  });

  test('a preflight from an allowed origin (also by wildcard pattern) passes', async () => {
    for (const origin of ['https://app.example.com', 'https://shop.tenant.example']) {
      const response = await request(svc.baseUrl, '/api/auth/test', {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-wal, x-sig, x-mes' },
      });
      assert.equal(response.status, 200, `${origin}: ${response.body}`);
      assert.equal(response.headers['access-control-allow-origin'], origin);
      assert.match(String(response.headers['access-control-allow-headers']), /X-SIG, X-WAL, X-MES$/);
      assert.deepEqual(headerLines(response, 'vary'), ['Origin', 'Access-Control-Request-Method', 'Access-Control-Request-Headers']);
    }
  });

  test('a preflight from any other origin: 403 "Invalid CORS request", no Access-Control-Allow-*', async () => {
    for (const origin of ['https://evil.example', 'https://tenant.example', 'https://app.example.com.evil.example']) {
      const response = await request(svc.baseUrl, '/api/auth/test', {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' },
      });
      assert.equal(response.status, 403, origin);
      assert.equal(response.body, 'Invalid CORS request');
      const corsHeaders = response.rawHeaders.filter(([name]) => /^access-control-allow-/i.test(name));
      assert.deepEqual(corsHeaders, [], origin);
      assert.equal(response.headers['x-frame-options'], 'DENY');
    }
  });

  test('a preflight asking for a method or header outside the contract is refused', async () => {
    const badMethod = await request(svc.baseUrl, '/api/auth/test', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'TRACE' },
    });
    assert.equal(badMethod.status, 403);
    const badHeader = await request(svc.baseUrl, '/api/auth/test', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'X-Custom' },
    });
    assert.equal(badHeader.status, 403);
  });

  test('a cross-origin request from a refused origin has no effect and no CORS headers', async () => {
    const headers = await signIn(fixture.ownerWallet, domain);
    const response = await request(svc.baseUrl, '/api/auth/logout', {
      method: 'POST',
      headers: { ...headers, Origin: 'https://evil.example' },
    });
    assert.equal(response.status, 403);
    assert.equal(response.body, 'Invalid CORS request');
    const still = await request(svc.baseUrl, '/api/auth/test', { headers });
    assert.equal(still.status, 200, 'the refused logout did not revoke the message');
  });

  test('a same-origin Origin header is not a CORS request', async () => {
    const headers = await signIn(fixture.ownerWallet, domain);
    const response = await request(svc.baseUrl, '/api/auth/test', { headers: { ...headers, Origin: svc.baseUrl } });
    assert.equal(response.status, 200, response.body);
  });

  test('health, readiness and the OpenAPI document', async () => {
    assert.deepEqual((await request(svc.baseUrl, '/healthz')).json(), { status: 'ok' });
    assert.deepEqual((await request(svc.baseUrl, '/readyz')).json(), { status: 'ready' });
    const openapi = (await request(svc.baseUrl, '/api/openapi.json')).json();
    assert.match(openapi.openapi, /^3\./);
    assert.ok(openapi.paths['/api/auth/test'].get, 'auth test documented');
    assert.ok(openapi.paths['/api/auth/nonce'].get);
    assert.ok(openapi.paths['/api/auth/logout'].post);
    const responses = openapi.paths['/api/auth/test'].get.responses;
    assert.ok(responses['200'] && responses['401'], 'success and error responses documented');
  });

  test('unknown routes answer 404 in the one error format', async () => {
    const response = await request(svc.baseUrl, '/api/nope');
    assert.equal(response.status, 404);
    assert.equal(response.headers['content-type'], 'application/problem+json');
    assert.equal(response.json().code, 'NOT_FOUND');
  });
});

/**
 * Headers beyond the contract's, for pages of another origin that make conditional writes, read a
 * restore's undo header or speak tus: opt-in, appended after the contract's values, which stay
 * exactly as they are without the settings (the suite above, and assertContractHeaders everywhere).
 */
describe('CORS_EXTRA_ALLOW_HEADERS and CORS_EXTRA_EXPOSE_HEADERS', () => {
  const origin = 'https://app.example.com';
  const contractAllow =
    'Origin, Content-Type, Accept, Authorization, Accept-Language, connection, Cache-Control, Access-Control-Request-Method, Access-Control-Request-Headers, X-SIG, X-WAL, X-MES';
  const contractExpose = 'Access-Control-Allow-Origin, Access-Control-Allow-Credentials';
  const preflight = (svc: TestService, headers: string) =>
    request(svc.baseUrl, '/api/auth/test', {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': headers },
    });

  test('unset: the contract lists exactly, and a preflight for If-Match is refused', async (t) => {
    const svc = await startTestService('sqlite', { env: { CORS_ORIGINS: origin } });
    t.after(() => svc.close());
    const health = await request(svc.baseUrl, '/healthz', { headers: { Origin: origin } });
    assert.equal(health.headers['access-control-allow-headers'], contractAllow);
    assert.equal(health.headers['access-control-expose-headers'], contractExpose);
    assert.equal((await preflight(svc, 'x-wal, if-match')).status, 403);
  });

  test('set: appended after the contract values on every answer, errors too, and allowed in preflights', async (t) => {
    const svc = await startTestService('sqlite', {
      env: {
        CORS_ORIGINS: origin,
        CORS_EXTRA_ALLOW_HEADERS: 'If-Match, If-None-Match, Tus-Resumable, Upload-Length, Upload-Offset, x-sig',
        CORS_EXTRA_EXPOSE_HEADERS: 'ETag,X-Kept-Version-Id,Location,Upload-Offset',
      },
    });
    t.after(() => svc.close());
    const allow = `${contractAllow}, If-Match, If-None-Match, Tus-Resumable, Upload-Length, Upload-Offset`;
    const expose = `${contractExpose}, ETag, X-Kept-Version-Id, Location, Upload-Offset`;
    for (const path of ['/healthz', '/api/auth/test', '/api/no-such-route']) {
      const answer = await request(svc.baseUrl, path, { headers: { Origin: origin } });
      assert.equal(answer.headers['access-control-allow-headers'], allow, `${path}: a name already listed (X-SIG) is not repeated`);
      assert.equal(answer.headers['access-control-expose-headers'], expose, path);
    }
    const allowed = await preflight(svc, 'x-wal, x-sig, x-mes, if-match, tus-resumable, upload-offset');
    assert.equal(allowed.status, 200, allowed.body);
    assert.equal(allowed.headers['access-control-allow-headers'], allow);
    assert.equal((await preflight(svc, 'x-wal, x-custom')).status, 403, 'a header in neither list is still refused');
  });

  test('a value that is no header name, or "*", refuses to start, naming the setting', () => {
    for (const [name, value] of [
      ['CORS_EXTRA_ALLOW_HEADERS', '*'],
      ['CORS_EXTRA_ALLOW_HEADERS', 'If Match'],
      ['CORS_EXTRA_EXPOSE_HEADERS', 'ETag,Bad:Name'],
    ] as const) {
      assert.throws(() => loadConfig({ [name]: value }), new RegExp(`${name} entry`), `${name}=${value}`);
    }
  });
});
