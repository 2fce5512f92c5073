import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { type AuthHeaders, newWallet, signIn, type TestWallet } from '../helpers/wallets.ts';

const DOMAIN = 'admin.example.com';
/** How stale an instance's view of an admin may be: the bound a change made elsewhere must reach it within. */
const REFRESH_SECONDS = 5;

/**
 * Sessions an admin controls: logging out everywhere (the admin itself, or an operator), a
 * suspension and a wallet rotation end every message signed until then, on every instance,
 * credentials already cached included; a message signed afterwards works.
 *
 * How soon another instance enforces a change is shown on the instances' own clock rather than by
 * waiting: after a change, the clock is moved on by AUTH_STATE_REFRESH, and the very next request
 * must see it. An instance that took longer (twice the bound, say) fails here whatever the load on
 * the machine, and none is waited for.
 */
for (const engine of ENGINES) {
  describe(`log out everywhere (${engine})`, () => {
    let storage: Storage;
    let a: TestService;
    let b: TestService;
    let fixture: TenantFixture;
    /** How far the instances' clock is ahead of the real one. */
    let shift = 0;
    const now = () => Date.now() + shift;

    before(async () => {
      storage = await createStorage(engine);
      // Two instances behind one load balancer: one database, one domain.
      const env = { AUTH_DOMAINS: DOMAIN, AUTH_STATE_REFRESH: String(REFRESH_SECONDS) };
      a = await startTestService(engine, { storage, env, now });
      b = await startTestService(engine, { storage, env, now });
      fixture = await createTenantFixture(a.service.store);
    });
    after(async () => {
      await a.close();
      await b.close();
      await storage.drop();
    });

    const authTest = (svc: TestService, headers: AuthHeaders) => request(svc.baseUrl, '/api/auth/test', { headers: { ...headers } });
    const codeOn = async (svc: TestService, headers: AuthHeaders) => {
      const response = await authTest(svc, headers);
      return response.status === 200 ? 'OK' : (response.json().code as string);
    };
    /** Moves the instances' clock on by AUTH_STATE_REFRESH: a change made before must be in force on the next request. */
    const passTheBound = () => {
      shift += REFRESH_SECONDS * 1000;
    };
    /** A fresh admin of the tenant, each test its own. */
    async function newAdmin(name: string) {
      const wallet = newWallet();
      const admin = await a.service.store.createAdmin({ tenantId: fixture.tenant.id, wallet: wallet.address, displayName: name });
      return { admin, wallet };
    }
    /** Messages signed a while ago (each its own nonce), presented on both instances so that both have them cached. */
    async function cachedMessages(wallet: TestWallet): Promise<AuthHeaders[]> {
      const messages = [];
      for (const minutesAgo of [30, 1]) {
        const headers = await signIn(wallet, DOMAIN, {
          issuedAt: new Date(Date.now() - minutesAgo * 60_000),
          nonce: `ago${minutesAgo}n${Date.now()}`,
        });
        for (const svc of [a, b]) assert.equal(await codeOn(svc, headers), 'OK');
        messages.push(headers);
      }
      return messages;
    }
    const freshMessage = async (wallet: TestWallet) => {
      // Issued At has milliseconds: a message signed a moment after the sign-out counts.
      await new Promise((resolve) => setTimeout(resolve, 5));
      return signIn(wallet, DOMAIN, { nonce: `fresh${Date.now()}` });
    };

    test('POST /api/auth/logout?all=true ends every message the admin signed, at once here and soon on the other instance', async () => {
      const { wallet } = await newAdmin('Logs out everywhere');
      const [older, newer] = (await cachedMessages(wallet)) as [AuthHeaders, AuthHeaders];
      const logout = await request(a.baseUrl, '/api/auth/logout?all=true', { method: 'POST', headers: { ...newer } });
      assert.equal(logout.status, 204);
      for (const headers of [older, newer]) {
        const refused = await authTest(a, headers);
        assertProblem(refused, 401, 'AUTH_MESSAGE_REVOKED');
        assert.match(refused.json().detail, /signed out/);
      }
      passTheBound();
      for (const headers of [older, newer]) assert.equal(await codeOn(b, headers), 'AUTH_MESSAGE_REVOKED');
      const fresh = await freshMessage(wallet);
      assert.equal(await codeOn(a, fresh), 'OK');
      assert.equal(await codeOn(b, fresh), 'OK');
    });

    test('an operator logs an admin out everywhere (the CLI writes the same record)', async () => {
      const { admin, wallet } = await newAdmin('Logged out by an operator');
      const [older, newer] = (await cachedMessages(wallet)) as [AuthHeaders, AuthHeaders];
      const changed = await b.service.store.signOutEverywhere(admin.id);
      assert.ok(changed.signedOutBefore !== null && changed.signedOutBefore <= Date.now());
      passTheBound();
      for (const svc of [a, b]) {
        for (const headers of [older, newer]) assert.equal(await codeOn(svc, headers), 'AUTH_MESSAGE_REVOKED');
      }
      assert.equal(await codeOn(a, await freshMessage(wallet)), 'OK');
    });

    test('a suspension ends the messages signed before it: reactivated, the admin signs in anew', async () => {
      const { admin, wallet } = await newAdmin('Suspended soon');
      const [older] = (await cachedMessages(wallet)) as [AuthHeaders];
      await a.service.store.setAdminStatus(admin.id, 'SUSPENDED');
      passTheBound();
      for (const svc of [a, b]) assert.equal(await codeOn(svc, older), 'ADMIN_SUSPENDED');
      await a.service.store.setAdminStatus(admin.id, 'ACTIVE');
      passTheBound();
      for (const svc of [a, b]) assert.equal(await codeOn(svc, older), 'AUTH_MESSAGE_REVOKED');
      assert.equal(await codeOn(b, await freshMessage(wallet)), 'OK');
    });

    test('a wallet rotation ends the old messages, even when the wallet moves back', async () => {
      const { admin, wallet } = await newAdmin('Rotating');
      const other = newWallet();
      const [older] = (await cachedMessages(wallet)) as [AuthHeaders];
      await a.service.store.setAdminWallet(admin.id, other.address);
      passTheBound();
      for (const svc of [a, b]) assert.equal(await codeOn(svc, older), 'AUTH_UNKNOWN_WALLET');
      assert.equal(await codeOn(a, await freshMessage(other)), 'OK');
      await a.service.store.setAdminWallet(admin.id, wallet.address);
      passTheBound();
      for (const svc of [a, b]) assert.equal(await codeOn(svc, older), 'AUTH_MESSAGE_REVOKED');
      assert.equal(await codeOn(b, await freshMessage(wallet)), 'OK');
    });

    test('another admin is not logged out; a bad all= value is refused and logs nobody out', async () => {
      const { wallet } = await newAdmin('Bystander');
      const [bystander] = (await cachedMessages(wallet)) as [AuthHeaders];
      const mine = await freshMessage((await newAdmin('Logs itself out')).wallet);
      const refused = await request(a.baseUrl, '/api/auth/logout?all=yes', { method: 'POST', headers: { ...mine } });
      assertProblem(refused, 400, 'VALIDATION_FAILED');
      assert.equal(await codeOn(a, mine), 'OK', 'nothing was logged out by the refused request');
      assert.equal((await request(a.baseUrl, '/api/auth/logout?all=true', { method: 'POST', headers: { ...mine } })).status, 204);
      assert.equal(await codeOn(a, mine), 'AUTH_MESSAGE_REVOKED');
      assert.equal(await codeOn(a, bystander), 'OK');
      assert.equal(await codeOn(b, bystander), 'OK');
    });
  });
}
