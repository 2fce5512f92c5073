import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINES } from '../helpers/backends.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { type AuthHeaders, newWallet, signIn } from '../helpers/wallets.ts';
import { AdminApi } from './admin-client.ts';

const DOMAIN = 'admin.example.com';
const REFRESH_SECONDS = 2;

/**
 * Two instances on one database: what an admin changes through one is enforced by the other within
 * AUTH_STATE_REFRESH. Nothing waits: the instances' clock is moved on by the bound after each
 * change, and the very next request on the other instance must see it (an instance that needed
 * longer fails here, whatever the machine's load).
 */
for (const engine of ENGINES) {
  describe(`self-service across two instances (${engine})`, () => {
    let storage: Storage;
    let a: TestService;
    let b: TestService;
    let fixture: TenantFixture;
    let shift = 0;
    const now = () => Date.now() + shift;
    const passTheBound = () => {
      shift += REFRESH_SECONDS * 1000;
    };

    before(async () => {
      storage = await createStorage(engine);
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

    /** The member's session, signed once and in use on instance b (cached there). */
    async function memberOnB(permissions: string[]) {
      const wallet = newWallet();
      const owner = new AdminApi(a.baseUrl, fixture.ownerWallet, DOMAIN);
      const created = await owner.post('/api/admins', {
        displayName: 'Member',
        wallet: wallet.address,
        permissions,
        channels: [fixture.channel.id],
      });
      assert.equal(created.status, 201, created.body);
      const session = await signIn(wallet, DOMAIN);
      assert.equal((await request(b.baseUrl, '/api/auth/test', { headers: session })).status, 200);
      return { id: created.json().id as string, session, owner };
    }
    const upload = (session: AuthHeaders, body: string) =>
      request(b.baseUrl, `/api/channels/${fixture.channel.id}/folders/docs/files/n.txt`, {
        method: 'PUT',
        headers: { ...session, 'Content-Type': 'text/plain' },
        body,
      });
    const codeOf = (response: { status: number; json(): { code: string } }) => (response.status < 300 ? 'OK' : response.json().code);

    test('a suspension made on one instance ends the session on the other within AUTH_STATE_REFRESH', async () => {
      const member = await memberOnB(['files:read']);
      assert.equal((await member.owner.patch(`/api/admins/${member.id}`, { status: 'SUSPENDED' })).status, 200);
      passTheBound();
      assert.equal(codeOf(await request(b.baseUrl, '/api/auth/test', { headers: member.session })), 'ADMIN_SUSPENDED');
    });

    test('a narrowed permission and an unlinked channel are enforced on the other instance within the bound', async () => {
      const member = await memberOnB(['files:read', 'files:write']);
      assert.equal(codeOf(await upload(member.session, 'one')), 'OK');
      assert.equal((await member.owner.patch(`/api/admins/${member.id}`, { permissions: ['files:read'] })).status, 200);
      passTheBound();
      assert.equal(codeOf(await upload(member.session, 'two')), 'PERMISSION_DENIED');
      assert.equal((await member.owner.delete(`/api/channels/${fixture.channel.id}/admins/${member.id}`)).status, 204);
      passTheBound();
      const read = await request(b.baseUrl, `/api/channels/${fixture.channel.id}/folders/docs/files/n.txt`, { headers: member.session });
      assert.equal(codeOf(read), 'CHANNEL_NOT_FOUND');
    });

    test('a removal on one instance ends the session on the other within the bound', async () => {
      const member = await memberOnB(['files:read']);
      assert.equal((await member.owner.delete(`/api/admins/${member.id}`)).status, 204);
      passTheBound();
      assert.equal(codeOf(await request(b.baseUrl, '/api/auth/test', { headers: member.session })), 'AUTH_UNKNOWN_WALLET');
    });
  });
}
