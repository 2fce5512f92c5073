import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Wallet } from 'ethers';
import { ALL_PERMISSIONS } from '../../src/model/permissions.ts';
import { assertContractHeaders, assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { authHeaders, base64Header, newWallet, signIn, siweMessage } from '../helpers/wallets.ts';

for (const engine of ENGINES) {
  describe(`GET /api/auth/test (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let domain: string;
    const get = (headers: object) => request(svc.baseUrl, '/api/auth/test', { headers });

    before(async () => {
      // On SQLite the sign-ins are checked on a worker thread (as the real service does on a
      // machine with a spare core), on PostgreSQL on the event loop: both paths answer the same.
      svc = await startTestService(engine, { env: { AUTH_RECOVERY_THREADS: engine === 'sqlite' ? '1' : '0' } });
      domain = new URL(svc.baseUrl).host;
      fixture = await createTenantFixture(svc.service.store, 'Acme');
      await svc.service.store.addTenantFeature(fixture.tenant.id, 'tenant-feature');
    });
    after(() => svc.close());

    test('answers the contract: principal, previews, full headers, checksummed wallet, exact headers', async () => {
      const headers = await signIn(fixture.ownerWallet, domain);
      // Any letter case of X-WAL is accepted; walletAddress comes back in EIP-55 form.
      const lowerWal = headers['X-WAL'].toLowerCase();
      const response = await get({ ...headers, 'X-WAL': lowerWal, 'X-Wallet-Address': lowerWal });
      assert.equal(response.status, 200, response.body);
      assert.equal(response.headers['content-type'], 'application/json');
      assertContractHeaders(response);
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['allHeaders', 'authenticated', 'headers', 'principal', 'walletAddress']);
      assert.equal(body.authenticated, true);
      assert.equal(body.walletAddress, fixture.ownerWallet.address);
      assert.deepEqual(body.principal, {
        id: fixture.owner.id,
        type: 'ADMIN',
        displayName: 'Acme owner',
        tenantId: fixture.tenant.id,
        ownerAdminId: 'N/A',
        status: 'ACTIVE',
        channelIds: [fixture.channel.id],
        effectivePermissions: [...ALL_PERMISSIONS].sort(),
        effectiveFeatures: ['tenant-feature'],
      });
      assert.match(body.principal.tenantId, /^t_/);
      assert.match(body.principal.channelIds[0], /^chn_/);
      assert.deepEqual(body.headers, {
        'X-WAL': `${lowerWal.slice(0, 20)}...`,
        'X-SIG': `${headers['X-SIG'].slice(0, 20)}...`,
        'X-MES': `${headers['X-MES'].slice(0, 20)}...`,
      });
      assert.deepEqual(body.allHeaders, {
        'X-WAL': lowerWal,
        'X-SIG': headers['X-SIG'],
        'X-MES': headers['X-MES'],
        'X-Wallet-Address': lowerWal,
      });
    });

    test('X-Wallet-Address is optional (null when not sent) but must match X-WAL when sent', async () => {
      const headers = await signIn(fixture.ownerWallet, domain);
      const without = await get({ ...headers, 'X-Wallet-Address': undefined });
      assert.equal(without.status, 200, without.body);
      assert.equal(without.json().allHeaders['X-Wallet-Address'], null);
      assertProblem(await get({ ...headers, 'X-Wallet-Address': newWallet().address }), 401, 'AUTH_ADDRESS_MISMATCH');
    });

    test('a credential in use is answered what each request sent: its X-Wallet-Address, not the one an earlier answer held', async () => {
      const headers = await signIn(fixture.ownerWallet, domain);
      const lower = headers['X-WAL'].toLowerCase();
      for (const walletAddress of [undefined, lower, headers['X-WAL'], undefined, lower, lower]) {
        const response = await get({ ...headers, 'X-Wallet-Address': walletAddress });
        assert.equal(response.status, 200, response.body);
        assert.equal(response.json().allHeaders['X-Wallet-Address'], walletAddress ?? null);
        assert.equal(response.json().allHeaders['X-SIG'], headers['X-SIG']);
      }
    });

    test('a member admin: grants, own plus tenant features, only linked channels, owner id', async () => {
      const other = await svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: 'not-linked' });
      const member = await createMemberAdmin(svc.service.store, fixture, {
        permissions: ['files:read'],
        features: ['beta'],
        channels: [fixture.channel],
      });
      const body = (await get(await signIn(member.wallet, domain))).json();
      assert.equal(body.principal.ownerAdminId, fixture.owner.id);
      assert.deepEqual(body.principal.effectivePermissions, ['files:read']);
      assert.deepEqual(body.principal.effectiveFeatures, ['beta', 'tenant-feature']);
      assert.deepEqual(body.principal.channelIds, [fixture.channel.id]);
      assert.ok(!body.principal.channelIds.includes(other.id));
    });

    test('a signature made by ethers (another wallet library) and a raw header-safe message', async () => {
      const ethersWallet = Wallet.createRandom();
      await svc.service.store.createAdmin({
        tenantId: fixture.tenant.id,
        wallet: ethersWallet.address,
        displayName: 'Ethers',
        ownerAdminId: fixture.owner.id,
      });
      const message = siweMessage({ address: ethersWallet.address as `0x${string}` }, domain);
      const signature = await ethersWallet.signMessage(message);
      const ok = await get({ 'X-WAL': ethersWallet.address, 'X-SIG': signature, 'X-MES': base64Header(message) });
      assert.equal(ok.status, 200, ok.body);
    });

    test('missing headers: 401 naming them, in the one error format', async () => {
      const headers = await signIn(fixture.ownerWallet, domain);
      const none = await get({});
      assertProblem(none, 401, 'AUTH_HEADERS_MISSING');
      assert.match(none.json().detail, /X-WAL, X-SIG, X-MES/);
      const noSig = await get({ ...headers, 'X-SIG': undefined });
      assertProblem(noSig, 401, 'AUTH_HEADERS_MISSING');
      assert.match(noSig.json().detail, /X-SIG/);
    });

    test('malformed addresses and signatures are refused as such', async () => {
      const headers = await signIn(fixture.ownerWallet, domain);
      assertProblem(await get({ ...headers, 'X-WAL': '0x1234' }), 401, 'AUTH_ADDRESS_MALFORMED');
      assertProblem(await get({ ...headers, 'X-SIG': '0x1234' }), 401, 'AUTH_SIGNATURE_MALFORMED');
      assertProblem(await get({ ...headers, 'X-SIG': headers['X-SIG'].slice(2) }), 401, 'AUTH_SIGNATURE_MALFORMED');
      assertProblem(await get({ ...headers, 'X-SIG': `0x${'zz'.repeat(65)}` }), 401, 'AUTH_SIGNATURE_MALFORMED');
      const badV = `${headers['X-SIG'].slice(0, -2)}05`;
      assertProblem(await get({ ...headers, 'X-SIG': badV }), 401, 'AUTH_SIGNATURE_MALFORMED');
    });

    test('a high-s twin of a valid signature is refused', async () => {
      const headers = await signIn(fixture.ownerWallet, domain);
      const sig = Buffer.from(headers['X-SIG'].slice(2), 'hex');
      const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
      const s = BigInt(`0x${sig.subarray(32, 64).toString('hex')}`);
      const highS = (n - s).toString(16).padStart(64, '0');
      const v = sig[64] === 27 ? 28 : 27;
      const twin = `0x${sig.subarray(0, 32).toString('hex')}${highS}${v.toString(16)}`;
      const response = await get({ ...headers, 'X-SIG': twin });
      assertProblem(response, 401, 'AUTH_SIGNATURE_MALFORMED');
      assert.match(response.json().detail, /high s/);
    });

    test('a signature of another key or of another message is a bad signature', async () => {
      const headers = await signIn(fixture.ownerWallet, domain);
      const stranger = await authHeaders(newWallet(), siweMessage(fixture.ownerWallet, domain));
      assertProblem(await get({ ...headers, 'X-SIG': stranger['X-SIG'] }), 401, 'AUTH_SIGNATURE_INVALID');
      const other = await signIn(fixture.ownerWallet, domain, { statement: 'Something else.' });
      assertProblem(await get({ ...headers, 'X-MES': other['X-MES'] }), 401, 'AUTH_SIGNATURE_INVALID');
    });

    test('the signature is checked against the exact bytes sent (no re-serialisation)', async () => {
      const message = siweMessage(fixture.ownerWallet, domain);
      const headers = await authHeaders(fixture.ownerWallet, message);
      // The same message with a trailing space is another message.
      assertProblem(await get({ ...headers, 'X-MES': base64Header(`${message} `) }), 401, 'AUTH_MESSAGE_MALFORMED');
      const crlf = message.replace(/\n/g, '\r\n');
      assertProblem(await get({ ...headers, 'X-MES': base64Header(crlf) }), 401, 'AUTH_MESSAGE_MALFORMED');
    });

    test('time window: expired, not yet valid, issued in the future, too old without expiry, skew allowed', async () => {
      const now = Date.now();
      const w = fixture.ownerWallet;
      assertProblem(
        await get(await signIn(w, domain, { issuedAt: new Date(now - 7200_000), expirationTime: new Date(now - 60_000) })),
        401,
        'AUTH_MESSAGE_EXPIRED',
      );
      assertProblem(await get(await signIn(w, domain, { notBefore: new Date(now + 120_000) })), 401, 'AUTH_MESSAGE_NOT_YET_VALID');
      assertProblem(await get(await signIn(w, domain, { issuedAt: new Date(now + 120_000) })), 401, 'AUTH_MESSAGE_NOT_YET_VALID');
      assertProblem(
        await get(await signIn(w, domain, { issuedAt: new Date(now - 86_500_000), expirationTime: null })),
        401,
        'AUTH_MESSAGE_EXPIRED',
      );
      const withinSkew = await get(await signIn(w, domain, { issuedAt: new Date(now - 3600_000), expirationTime: new Date(now - 10_000) }));
      assert.equal(withinSkew.status, 200, withinSkew.body);
      const noExpiry = await get(await signIn(w, domain, { issuedAt: new Date(now - 3600_000), expirationTime: null }));
      assert.equal(noExpiry.status, 200, noExpiry.body);
    });

    test('domain and address inside the message are checked', async () => {
      assertProblem(await get(await signIn(fixture.ownerWallet, domain, { domain: 'evil.example' })), 401, 'AUTH_DOMAIN_MISMATCH');
      const someoneElse = newWallet();
      const message = siweMessage(fixture.ownerWallet, domain, { address: someoneElse.address });
      assertProblem(await get(await authHeaders(fixture.ownerWallet, message)), 401, 'AUTH_ADDRESS_MISMATCH');
    });

    test('messages that are not SIWE are refused by default; broken encodings too', async () => {
      const plain = await authHeaders(fixture.ownerWallet, `Sign in at ${new Date().toISOString()}`, { raw: true });
      assertProblem(await get(plain), 401, 'AUTH_MESSAGE_REFUSED');
      const headers = await signIn(fixture.ownerWallet, domain);
      assertProblem(await get({ ...headers, 'X-MES': 'base64:%%%' }), 401, 'AUTH_MESSAGE_MALFORMED');
      const broken = siweMessage(fixture.ownerWallet, domain).replace('Version: 1', 'Version: 2');
      assertProblem(await get(await authHeaders(fixture.ownerWallet, broken)), 401, 'AUTH_MESSAGE_MALFORMED');
    });

    test('a valid signature of a wallet no admin holds: 401 AUTH_UNKNOWN_WALLET, saying to ask an owner of the tenant for an invitation', async () => {
      const refused = await get(await signIn(newWallet(), domain));
      assertProblem(refused, 401, 'AUTH_UNKNOWN_WALLET');
      assert.match(refused.json().detail, /no admin has this wallet: ask an owner of the tenant for an invitation/);
    });

    test('unknown wallet → 401; suspended admin → 403; reactivated → a new message 200, the old one stays ended', async () => {
      assertProblem(await get(await signIn(newWallet(), domain)), 401, 'AUTH_UNKNOWN_WALLET');
      const member = await createMemberAdmin(svc.service.store, fixture);
      const headers = await signIn(member.wallet, domain);
      assert.equal((await get(headers)).status, 200);
      await svc.service.store.setAdminStatus(member.admin.id, 'SUSPENDED');
      await waitFor(async () => (await get(headers)).status === 403, 10_000);
      assertProblem(await get(headers), 403, 'ADMIN_SUSPENDED');
      await svc.service.store.setAdminStatus(member.admin.id, 'ACTIVE');
      await waitFor(async () => (await get(headers)).status === 401, 10_000);
      assertProblem(await get(headers), 401, 'AUTH_MESSAGE_REVOKED');
      assert.equal((await get(await signIn(member.wallet, domain, { nonce: 'afterreactivation1' }))).status, 200);
    });

    test('logout revokes the presented message at once; a new message works', async () => {
      const headers = await signIn(fixture.ownerWallet, domain);
      assert.equal((await get(headers)).status, 200);
      const logout = await request(svc.baseUrl, '/api/auth/logout', { method: 'POST', headers: { ...headers } });
      assert.equal(logout.status, 204, logout.body);
      assertProblem(await get(headers), 401, 'AUTH_MESSAGE_REVOKED');
      assert.equal((await get(await signIn(fixture.ownerWallet, domain, { nonce: 'anothernonce1234' }))).status, 200);
    });

    test('logs hold neither X-SIG nor X-MES values', async () => {
      const headers = await signIn(fixture.ownerWallet, domain);
      await get(headers);
      await get({ ...headers, 'X-SIG': headers['X-SIG'].slice(0, 60) });
      const logs = svc.logs.join('\n');
      assert.ok(logs.includes('/api/auth/test'), 'requests are logged');
      assert.ok(!logs.includes(headers['X-SIG'].slice(2, 40)), 'signature absent from logs');
      assert.ok(!logs.includes(headers['X-MES'].slice(7, 40)), 'message absent from logs');
    });
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`condition not met within ${timeoutMs} ms`);
}
