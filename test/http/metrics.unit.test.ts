import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { sample } from '../helpers/metrics-text.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

describe('GET /metrics', () => {
  let svc: TestService;
  let fixture: TenantFixture;

  before(async () => {
    svc = await startTestService('sqlite');
    fixture = await createTenantFixture(svc.service.store, 'Metrics');
  });
  after(() => svc.close());

  test('counts requests per route and status, auth failures by code, cache hits and misses, restores and backups', async () => {
    const auth = { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) };
    for (let i = 0; i < 3; i++) assert.equal((await request(svc.baseUrl, '/api/auth/test', { headers: auth })).status, 200);
    await request(svc.baseUrl, '/api/auth/test', { headers: { ...auth, 'X-SIG': '0x00' } });
    const client = new FilesClient(svc.baseUrl, fixture.channel.id, auth);
    await client.put('d', 'f.txt', 'twelve bytes');
    await nextSecond();
    const { timestamp } = (await client.backup()).json();
    await client.put('d', 'f.txt', 'changed');
    assert.equal((await client.restore('d', 'f.txt', `?backupTimestamp=${timestamp}`)).status, 200);

    const scraped = await request(svc.baseUrl, '/metrics');
    assert.equal(scraped.status, 200);
    assert.match(String(scraped.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = scraped.body;
    assert.equal(sample(text, 'wallet_admin_http_requests_total', { method: 'GET', route: '/api/auth/test', status_code: '200' }), 3);
    assert.equal(sample(text, 'wallet_admin_http_requests_total', { route: '/api/auth/test', status_code: '401' }), 1);
    assert.equal(sample(text, 'wallet_admin_auth_failures_total', { code: 'AUTH_SIGNATURE_MALFORMED' }), 1);
    assert.ok(
      (sample(text, 'wallet_admin_http_request_duration_seconds_count', { route: '/api/auth/test', status_code: '200' }) ?? 0) === 3,
    );
    assert.ok((sample(text, 'wallet_admin_signature_cache_hits_total') ?? 0) >= 2);
    assert.ok((sample(text, 'wallet_admin_signature_cache_misses_total') ?? 0) >= 1);
    assert.equal(sample(text, 'wallet_admin_file_operations_total', { action: 'restore', result: 'ok' }), 1);
    assert.equal(sample(text, 'wallet_admin_file_operations_total', { action: 'backup', result: 'ok' }), 1);
    assert.equal(sample(text, 'wallet_admin_file_operation_bytes_total', { action: 'restore' }), 12);
    assert.equal(sample(text, 'wallet_admin_file_operation_bytes_total', { action: 'upload' }), 12 + 7);
    assert.equal(sample(text, 'wallet_admin_file_operation_duration_seconds_count', { action: 'backup' }), 1);
    // Node's own, sampled less often than prom-client's default (see metrics.ts) but still there.
    assert.ok((sample(text, 'wallet_admin_nodejs_eventloop_lag_p99_seconds') ?? -1) >= 0);
  });

  test('with METRICS_TOKEN, a bearer token is required', async (t) => {
    const guarded = await startTestService('sqlite', { env: { METRICS_TOKEN: 'scrape-me' } });
    t.after(() => guarded.close());
    assertProblem(await request(guarded.baseUrl, '/metrics'), 401, 'AUTH_HEADERS_MISSING');
    assertProblem(await request(guarded.baseUrl, '/metrics', { headers: { Authorization: 'Bearer wrong' } }), 401, 'AUTH_HEADERS_MISSING');
    assert.equal((await request(guarded.baseUrl, '/metrics', { headers: { Authorization: 'Bearer scrape-me' } })).status, 200);
  });
});
