import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { WINDOW_MS } from '../../src/auth/limits/failure-limiter.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { testRedisUrl } from '../helpers/backends.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService } from '../helpers/test-service.ts';
import { badSignatureHeaders } from '../helpers/wallets.ts';

// Needs Redis: whole suite only (`npm test`); the in-process limit is in auth-rate-limit.unit.test.ts.

const LIMIT = 5;
const REDIS_URL = testRedisUrl();
/** Addresses of this run only, so that counts in a shared Redis never meet another run's. */
const address = (n: number) => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${n}`;

/**
 * Waits, when the current one-minute window of the limit (src/auth/limits/failure-limiter.ts) has
 * under 15 s left, for the next one: the counts are per fixed window, and a test's failures split
 * over two windows would not reach the limit in either (CI once saw the sixth request answered 401 so).
 */
async function awayFromWindowEdge(): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < 15_000) await sleep(left + 10);
}

describe('failed-authentication limit shared through Redis', () => {
  test('failures counted by one instance block the address on another', async (t) => {
    const env = { AUTH_FAIL_LIMIT: String(LIMIT), TRUST_PROXY: '127.0.0.1', REDIS_URL, AUTH_DOMAINS: 'admin.example.test' };
    const [a, b] = await Promise.all([startTestService('sqlite', { env }), startTestService('sqlite', { env })]);
    t.after(async () => {
      await a.close();
      await b.close();
    });
    const fixture = await createTenantFixture(a.service.store, 'Shared');
    const bad = await badSignatureHeaders(fixture.ownerWallet, a.config.auth.domains[0]!);
    await awayFromWindowEdge();
    const attacker = address(5);
    for (let i = 0; i < LIMIT; i++)
      assert.equal((await request(a.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': attacker } })).status, 401);
    assertProblem(await request(b.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': attacker } }), 429, 'RATE_LIMITED');
    assert.equal(
      (await request(b.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': address(6) } })).status,
      401,
      'another address is only refused, not limited',
    );
  });

  test('failures from many addresses of one IPv6 /64 count together across instances; another /64 is not blocked', async (t) => {
    const env = { AUTH_FAIL_LIMIT: String(LIMIT), TRUST_PROXY: '127.0.0.1', REDIS_URL, AUTH_DOMAINS: 'admin.example.test' };
    const [a, b] = await Promise.all([startTestService('sqlite', { env }), startTestService('sqlite', { env })]);
    t.after(async () => {
      await a.close();
      await b.close();
    });
    const fixture = await createTenantFixture(a.service.store, 'SharedIpv6');
    const bad = await badSignatureHeaders(fixture.ownerWallet, a.config.auth.domains[0]!);
    await awayFromWindowEdge();
    const random = () => Math.floor(Math.random() * 0xffff).toString(16);
    const network = `2001:db8:${random()}:${random()}:`;
    for (let i = 1; i <= LIMIT; i++) {
      const service = i % 2 === 0 ? a : b;
      const answer = await request(service.baseUrl, '/api/auth/test', {
        headers: { ...bad, 'X-Forwarded-For': `${network}${i}:0:0:${i}` },
      });
      assert.equal(answer.status, 401);
    }
    for (const service of [a, b])
      assertProblem(
        await request(service.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': `${network}:beef` } }),
        429,
        'RATE_LIMITED',
      );
    const neighbour = `2001:db8:${random()}:${random()}::1`;
    assert.equal((await request(b.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': neighbour } })).status, 401);
  });

  test('a Redis that refuses the credentials is logged without the password, at start-up and at every retry', async (t) => {
    const secret = 'r3dis-Passw0rd';
    const refused = new URL(REDIS_URL);
    // A user the server does not know: refused with WRONGPASS whether or not the server has a password.
    refused.username = 'wallet-admin-test-nobody';
    refused.password = secret;
    const svc = await startTestService('sqlite', { env: { REDIS_URL: refused.href } });
    t.after(() => svc.close());
    const deadline = Date.now() + 10_000;
    while (svc.logs.filter((line) => line.includes('WRONGPASS')).length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(svc.logs.filter((line) => line.includes('WRONGPASS')).length >= 2, svc.logs.join('\n'));
    for (const line of svc.logs) assert.ok(!line.includes(secret), line);
  });
});
