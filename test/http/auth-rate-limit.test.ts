import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { badSignatureHeaders, signIn } from '../helpers/wallets.ts';

const LIMIT = 5;
/** Random client addresses, so that one test's failures never count for another's. */
const address = (n: number) => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${n}`;

describe('failed-authentication limit per client address (in-process)', () => {
  let svc: TestService;
  let fixture: TenantFixture;
  let domain: string;

  before(async () => {
    svc = await startTestService('sqlite', { env: { AUTH_FAIL_LIMIT: String(LIMIT), TRUST_PROXY: '127.0.0.1' } });
    domain = svc.config.auth.domains[0]!;
    fixture = await createTenantFixture(svc.service.store, 'Limits');
  });
  after(() => svc.close());

  test('after AUTH_FAIL_LIMIT failures an address gets 429 with Retry-After; other addresses are not slowed', async () => {
    const attacker = address(1);
    const bad = await badSignatureHeaders(fixture.ownerWallet, domain);
    for (let i = 0; i < LIMIT; i++) {
      assert.equal((await request(svc.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': attacker } })).status, 401);
    }
    const limited = await request(svc.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': attacker } });
    assertProblem(limited, 429, 'RATE_LIMITED');
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${limited.headers['retry-after']}`);

    const good = await signIn(fixture.ownerWallet, domain);
    assert.equal(
      (await request(svc.baseUrl, '/api/auth/test', { headers: { ...good, 'X-Forwarded-For': address(2) } })).status,
      200,
      'another address signs in',
    );
    assertProblem(await request(svc.baseUrl, '/api/auth/test', { headers: { ...good, 'X-Forwarded-For': attacker } }), 429, 'RATE_LIMITED');
  });

  test('failures claiming a wallet do not lock that wallet out elsewhere', async () => {
    const bad = await badSignatureHeaders(fixture.ownerWallet, domain);
    const attacker = address(3);
    for (let i = 0; i < LIMIT + 3; i++) await request(svc.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': attacker } });
    const good = await signIn(fixture.ownerWallet, domain);
    assert.equal((await request(svc.baseUrl, '/api/auth/test', { headers: { ...good, 'X-Forwarded-For': address(4) } })).status, 200);
  });
});

describe('X-Forwarded-For is believed only from TRUST_PROXY', () => {
  test('without TRUST_PROXY every request counts for the peer address', async (t) => {
    const svc = await startTestService('sqlite', { env: { AUTH_FAIL_LIMIT: String(LIMIT) } });
    t.after(() => svc.close());
    const fixture = await createTenantFixture(svc.service.store, 'NoProxy');
    const bad = await badSignatureHeaders(fixture.ownerWallet, svc.config.auth.domains[0]!);
    // A new X-Forwarded-For on every request must not buy new attempts.
    for (let i = 0; i < LIMIT; i++)
      await request(svc.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': address(i + 10) } });
    assertProblem(
      await request(svc.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': address(99) } }),
      429,
      'RATE_LIMITED',
    );
  });
});
