import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/metadata/database.ts';
import { ENGINES } from '../helpers/backends.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { authHeaders, newWallet, signIn } from '../helpers/wallets.ts';

for (const engine of ENGINES) {
  describe(`server nonces (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let domain: string;
    before(async () => {
      svc = await startTestService(engine, { env: { AUTH_REQUIRE_SERVER_NONCE: 'true' } });
      domain = new URL(svc.baseUrl).host;
      fixture = await createTenantFixture(svc.service.store);
    });
    after(() => svc.close());

    const nonce = async () => {
      const response = await request(svc.baseUrl, '/api/auth/nonce');
      assert.equal(response.status, 200);
      assert.equal(response.headers['content-type'], 'application/json');
      const body = response.json();
      assert.match(body.nonce, /^[A-Za-z0-9]{8,}$/);
      assert.ok(Date.parse(body.expiresAt) > Date.now());
      return body.nonce as string;
    };
    const get = (headers: object) => request(svc.baseUrl, '/api/auth/test', { headers: headers as Record<string, string> });

    test('nonces are unique and need no authentication', async () => {
      const seen = new Set(await Promise.all(Array.from({ length: 20 }, nonce)));
      assert.equal(seen.size, 20);
    });

    test('a message must carry a nonce this service issued', async () => {
      const refused = await get(await signIn(fixture.ownerWallet, domain, { nonce: 'madeupnonce12345' }));
      assert.equal(refused.status, 401);
      assert.equal(refused.json().code, 'AUTH_NONCE_INVALID');
      const headers = await signIn(fixture.ownerWallet, domain, { nonce: await nonce() });
      assert.equal((await get(headers)).status, 200);
      assert.equal((await get(headers)).status, 200, 'the same message may be presented again');
    });

    test('issuing nonces writes nothing: only an admin’s message that uses one, validly signed, leaves a row', async () => {
      const rows = async () => {
        // A connection of its own to the service's database, as an operator's psql or sqlite3 would be.
        const { db } = await openDatabase({ dataDir: svc.config.dataDir, databaseUrl: svc.config.databaseUrl, logger: console });
        try {
          return Number((await sql<{ n: number | string }>`select count(*) as n from auth_nonces`.execute(db)).rows[0]!.n);
        } finally {
          await db.destroy();
        }
      };
      const before = await rows();
      await Promise.all(Array.from({ length: 300 }, nonce));
      assert.equal(await rows(), before, '300 nonces, no row');
      // A stranger signing with throwaway keys: valid signatures, fresh nonces, no admin behind them.
      for (let i = 0; i < 5; i++) {
        const stranger = await get(await signIn(newWallet(), domain, { nonce: await nonce() }));
        assert.equal(stranger.json().code, 'AUTH_UNKNOWN_WALLET', 'a signature by a wallet that is no admin');
      }
      assert.equal(await rows(), before, 'a wallet that is no admin writes nothing');
      const suspended = await createMemberAdmin(svc.service.store, fixture);
      await svc.service.store.setAdminStatus(suspended.admin.id, 'SUSPENDED');
      assert.equal((await get(await signIn(suspended.wallet, domain, { nonce: await nonce() }))).json().code, 'ADMIN_SUSPENDED');
      assert.equal(await rows(), before, 'nor does a suspended admin');
      const admins = await signIn(fixture.ownerWallet, domain, { nonce: await nonce() });
      assert.equal((await get(admins)).status, 200);
      assert.equal((await get(admins)).status, 200, 'presented again: its claim is cached');
      assert.equal(await rows(), before + 1, 'one claim per admin message that used a nonce');
    });

    test('a nonce altered by one character, or of another form, is not one this service issued', async () => {
      const issued = await nonce();
      const altered = issued.slice(0, -1) + (issued.endsWith('0') ? '1' : '0');
      for (const candidate of [altered, issued.toUpperCase(), `${issued}0`, 'abcdefgh12345678']) {
        const refused = await get(await signIn(fixture.ownerWallet, domain, { nonce: candidate }));
        assert.equal(refused.json().code, 'AUTH_NONCE_INVALID', candidate);
        assert.match(refused.json().detail, /not issued by this service/);
      }
    });

    test('one nonce serves one message only', async () => {
      const issued = await nonce();
      assert.equal((await get(await signIn(fixture.ownerWallet, domain, { nonce: issued }))).status, 200);
      const second = await get(await signIn(fixture.ownerWallet, domain, { nonce: issued, statement: 'Another message.' }));
      assert.equal(second.status, 401);
      assert.equal(second.json().code, 'AUTH_NONCE_INVALID');
    });
  });

  describe(`two instances sharing one database (${engine})`, () => {
    let storage: Storage;
    let a: TestService;
    let b: TestService;
    let fixture: TenantFixture;
    /** How far the instances' clock is ahead of the real one: moved on past AUTH_STATE_REFRESH instead of waiting for it. */
    let shift = 0;
    before(async () => {
      storage = await createStorage(engine);
      // Both instances accept the same domain, as instances behind one load balancer do.
      const env = { AUTH_DOMAINS: 'admin.example.com' };
      const now = () => Date.now() + shift;
      a = await startTestService(engine, { storage, env, now });
      b = await startTestService(engine, { storage, env, now });
      fixture = await createTenantFixture(a.service.store);
    });
    after(async () => {
      await a.close();
      await b.close();
      await storage.drop();
    });

    test('logout on one instance is in force on the other within AUTH_STATE_REFRESH (2 s by default)', async () => {
      const headers = await signIn(fixture.ownerWallet, 'admin.example.com');
      assert.equal((await request(b.baseUrl, '/api/auth/test', { headers: { ...headers } })).status, 200);
      assert.equal((await request(a.baseUrl, '/api/auth/logout', { method: 'POST', headers: { ...headers } })).status, 204);
      assert.equal(
        (await request(a.baseUrl, '/api/auth/test', { headers: { ...headers } })).status,
        401,
        'at once on the instance that took it',
      );
      shift += b.config.auth.stateRefreshSeconds * 1000;
      const refused = await request(b.baseUrl, '/api/auth/test', { headers: { ...headers } });
      assert.equal(refused.status, 401, 'on the other once its clock has moved on by the bound');
      assert.equal(refused.json().code, 'AUTH_MESSAGE_REVOKED');
    });

    test('a plain message signed by the wallet is refused on both (policy off by default)', async () => {
      const headers = await authHeaders(fixture.ownerWallet, `Login ${Math.floor(Date.now() / 1000)}`, { raw: true });
      for (const svc of [a, b]) {
        const response = await request(svc.baseUrl, '/api/auth/test', { headers: { ...headers } });
        assert.equal(response.json().code, 'AUTH_MESSAGE_REFUSED');
      }
    });
  });
}

describe('plain message policies', () => {
  test('timestamped: a fresh ISO or Unix timestamp passes, a stale one or none is refused', async (t) => {
    const svc = await startTestService('sqlite', { env: { AUTH_PLAIN_MESSAGES: 'timestamped', AUTH_MAX_AGE: '600' } });
    t.after(() => svc.close());
    const fixture = await createTenantFixture(svc.service.store);
    const w = fixture.ownerWallet;
    const get = async (message: string) =>
      await request(svc.baseUrl, '/api/auth/test', { headers: { ...(await authHeaders(w, message, { raw: true })) } });
    assert.equal((await get(`Sign in at ${new Date().toISOString()}`)).status, 200);
    assert.equal((await get(`login:${Math.floor(Date.now() / 1000)}`)).status, 200);
    assert.equal((await get(`login:${Date.now()}`)).status, 200);
    assert.equal((await get(`Sign in at ${new Date(Date.now() - 3600_000).toISOString()}`)).json().code, 'AUTH_MESSAGE_EXPIRED');
    assert.equal((await get('Sign in, no time')).json().code, 'AUTH_MESSAGE_REFUSED');
    // Multi-line plain messages travel base64-encoded and are refused as not single-line.
    const multi = await request(svc.baseUrl, '/api/auth/test', {
      headers: { ...(await authHeaders(w, `a\n${new Date().toISOString()}`)) },
    });
    assert.equal(multi.json().code, 'AUTH_MESSAGE_REFUSED');
  });

  test('any: any message signed by the wallet passes (static credential)', async (t) => {
    const svc = await startTestService('sqlite', { env: { AUTH_PLAIN_MESSAGES: 'any' } });
    t.after(() => svc.close());
    const fixture = await createTenantFixture(svc.service.store);
    const response = await request(svc.baseUrl, '/api/auth/test', {
      headers: { ...(await authHeaders(fixture.ownerWallet, 'hello', { raw: true })) },
    });
    assert.equal(response.status, 200, response.body);
    assert.equal(response.json().allHeaders['X-MES'], 'hello');
    assert.ok(
      svc.logs.some((line) => line.includes('AUTH_PLAIN_MESSAGES=any')),
      'start-up warns about it',
    );
  });

  test('any: after a logout everywhere no plain message of that admin works again, since none says when it was signed; SIWE does', async (t) => {
    const svc = await startTestService('sqlite', { env: { AUTH_PLAIN_MESSAGES: 'any' } });
    t.after(() => svc.close());
    const fixture = await createTenantFixture(svc.service.store);
    const plain = async (message: string) => ({ ...(await authHeaders(fixture.ownerWallet, message, { raw: true })) });
    const code = async (headers: Record<string, string>) => {
      const response = await request(svc.baseUrl, '/api/auth/test', { headers });
      return response.status === 200 ? 'OK' : (response.json().code as string);
    };
    const before = await plain('plain credential, signed before');
    assert.equal(await code(before), 'OK');
    assert.equal((await request(svc.baseUrl, '/api/auth/logout?all=true', { method: 'POST', headers: before })).status, 204);
    assert.equal(await code(before), 'AUTH_MESSAGE_REVOKED');
    // Signed afterwards, but nothing in it says so: it cannot be told from one signed before.
    assert.equal(await code(await plain('plain credential, signed afterwards')), 'AUTH_MESSAGE_REVOKED');
    assert.equal(
      await code({ ...(await signIn(fixture.ownerWallet, new URL(svc.baseUrl).host)) }),
      'OK',
      'a SIWE message signed afterwards',
    );
  });
});
