import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { noteCredential } from '../helpers/log-secrets.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { badSignatureHeaders, newWallet, signIn } from '../helpers/wallets.ts';

const LIMIT = 5;
/** Random client addresses, so that one test's failures never count for another's. */
const address = (n: number) => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${n}`;
/** A random IPv6 /64 of the documentation range, as a prefix to append an interface id to. */
const ipv6Network = () => `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}:`;

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

  test("an invitation's token is a credential: wrong ones, previewed or accepted, count as failures; then even a right one is 429", async () => {
    const attacker = address(5);
    const from = { 'X-Forwarded-For': attacker };
    const preview = (token: string) =>
      request(svc.baseUrl, '/api/invitations/preview', {
        method: 'POST',
        headers: { ...from, 'Content-Type': 'application/json' },
        body: JSON.stringify({ token }),
      });
    const accept = async (token: string) =>
      request(svc.baseUrl, `/api/invitations/${token}/accept`, {
        method: 'POST',
        headers: { ...from, ...(await signIn(newWallet(), domain)) },
      });
    const owner = await signIn(fixture.ownerWallet, domain);
    const issued = await request(svc.baseUrl, '/api/invitations', {
      method: 'POST',
      headers: { ...owner, 'Content-Type': 'application/json' },
      body: JSON.stringify({ permissions: [], expiresIn: 600 }),
    });
    assert.equal(issued.status, 201, issued.body);
    const { token } = issued.json();
    noteCredential(token);
    assert.equal((await preview(token)).status, 200, 'a right token, before any failure');
    for (let i = 0; i < LIMIT; i++) assertProblem(await (i % 2 === 0 ? preview : accept)(`wai_wrong${i}`), 404, 'INVITATION_NOT_FOUND');
    assertProblem(await preview(token), 429, 'RATE_LIMITED');
    assertProblem(await accept(token), 429, 'RATE_LIMITED');
    // Another address is not slowed, and the invitation is still there to accept.
    const elsewhere = await request(svc.baseUrl, '/api/invitations/preview', {
      method: 'POST',
      headers: { 'X-Forwarded-For': address(6), 'Content-Type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    assert.equal(elsewhere.status, 200, elsewhere.body);
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

describe('failed-authentication limit per IPv6 network (AUTH_FAIL_IPV6_PREFIX)', () => {
  const fail = (svc: TestService, bad: object, client: string) =>
    request(svc.baseUrl, '/api/auth/test', { headers: { ...bad, 'X-Forwarded-For': client } });

  test('failures from many addresses of one /64 reach the limit together; another /64 is not blocked', async (t) => {
    const svc = await startTestService('sqlite', { env: { AUTH_FAIL_LIMIT: String(LIMIT), TRUST_PROXY: '127.0.0.1' } });
    t.after(() => svc.close());
    const fixture = await createTenantFixture(svc.service.store, 'Ipv6');
    const bad = await badSignatureHeaders(fixture.ownerWallet, svc.config.auth.domains[0]!);
    const network = ipv6Network();
    // A new interface id each time, written in different spellings of the same network.
    const rotating = [`${network}:1`, `${network}a:b:c:d`, `${network}1234:0:0:1`, `${network}ffff:ffff:ffff:fffe`, `${network}0:0:0:5`];
    for (const client of rotating.slice(0, LIMIT)) assert.equal((await fail(svc, bad, client)).status, 401, client);
    assertProblem(await fail(svc, bad, `${network}:dead:beef`), 429, 'RATE_LIMITED');
    assertProblem(await fail(svc, bad, `${network.toUpperCase()}0:0:0:42`), 429, 'RATE_LIMITED');
    const good = await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!);
    assertProblem(
      await request(svc.baseUrl, '/api/auth/test', { headers: { ...good, 'X-Forwarded-For': `${network}:77` } }),
      429,
      'RATE_LIMITED',
    );
    const neighbour = ipv6Network();
    assert.equal((await fail(svc, bad, `${neighbour}:1`)).status, 401, 'another /64 is only refused, not limited');
    assert.equal(
      (await request(svc.baseUrl, '/api/auth/test', { headers: { ...good, 'X-Forwarded-For': `${neighbour}:2` } })).status,
      200,
      'another /64 signs in',
    );
  });

  test('an IPv4-mapped IPv6 address counts with its IPv4 address', async (t) => {
    const svc = await startTestService('sqlite', { env: { AUTH_FAIL_LIMIT: String(LIMIT), TRUST_PROXY: '127.0.0.1' } });
    t.after(() => svc.close());
    const fixture = await createTenantFixture(svc.service.store, 'Mapped');
    const bad = await badSignatureHeaders(fixture.ownerWallet, svc.config.auth.domains[0]!);
    const ipv4 = address(7);
    for (let i = 0; i < LIMIT; i++) assert.equal((await fail(svc, bad, i % 2 === 0 ? `::ffff:${ipv4}` : ipv4)).status, 401);
    assertProblem(await fail(svc, bad, ipv4), 429, 'RATE_LIMITED');
    assertProblem(await fail(svc, bad, `::FFFF:${ipv4}`), 429, 'RATE_LIMITED');
  });

  test('AUTH_FAIL_IPV6_PREFIX=128 counts per address, and a shorter prefix a wider network', async (t) => {
    const perAddress = await startTestService('sqlite', {
      env: { AUTH_FAIL_LIMIT: String(LIMIT), TRUST_PROXY: '127.0.0.1', AUTH_FAIL_IPV6_PREFIX: '128' },
    });
    const per48 = await startTestService('sqlite', {
      env: { AUTH_FAIL_LIMIT: String(LIMIT), TRUST_PROXY: '127.0.0.1', AUTH_FAIL_IPV6_PREFIX: '48' },
    });
    t.after(async () => {
      await perAddress.close();
      await per48.close();
    });
    const fixture = await createTenantFixture(perAddress.service.store, 'Per128');
    const bad = await badSignatureHeaders(fixture.ownerWallet, perAddress.config.auth.domains[0]!);
    const network = ipv6Network();
    for (let i = 1; i <= LIMIT + 2; i++) assert.equal((await fail(perAddress, bad, `${network}:${i}`)).status, 401);
    for (let i = 0; i < LIMIT; i++) assert.equal((await fail(perAddress, bad, `${network}0:0:0:99`)).status, 401);
    assertProblem(await fail(perAddress, bad, `${network}:99`), 429, 'RATE_LIMITED');

    const wide = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:`;
    for (let i = 1; i <= LIMIT; i++) assert.equal((await fail(per48, bad, `${wide}${i}::1`)).status, 401);
    assertProblem(await fail(per48, bad, `${wide}ffff::1`), 429, 'RATE_LIMITED');
  });
});
