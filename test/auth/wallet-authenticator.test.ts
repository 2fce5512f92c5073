import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createAddressRecoverer } from '../../src/auth/signature/address-recoverer.ts';
import { WalletAuthenticator } from '../../src/auth/wallet-authenticator.ts';
import { loadConfig } from '../../src/config/config.ts';
import { isAppError } from '../../src/errors/app-error.ts';
import { openMetadataStore } from '../../src/store/open-metadata-store.ts';
import type { MetadataStore } from '../../src/store/types.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { newWallet, signIn } from '../helpers/wallets.ts';

const DOMAIN = 'admin.example.com';

describe('WalletAuthenticator (no HTTP)', () => {
  let dataDir: string;
  let store: MetadataStore;
  let fixture: TenantFixture;
  let clock = Date.now();

  const authenticator = (env: Record<string, string> = {}) =>
    new WalletAuthenticator({
      config: loadConfig({ AUTH_DOMAINS: DOMAIN, ...env }).auth,
      store,
      recoverer: createAddressRecoverer(),
      now: () => clock,
    });
  const asHeaders = (h: Awaited<ReturnType<typeof signIn>>) => ({
    wal: h['X-WAL'],
    sig: h['X-SIG'],
    mes: h['X-MES'],
    walletAddress: h['X-Wallet-Address'],
  });
  const codeOf = async (promise: Promise<unknown>) => (await outcomeOf(promise)).code;
  const outcomeOf = async (promise: Promise<unknown>): Promise<{ code: string; detail: string }> => {
    try {
      await promise;
      return { code: 'OK', detail: '' };
    } catch (error) {
      assert.ok(isAppError(error), String(error));
      return { code: error.code, detail: error.message };
    }
  };

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-auth-'));
    store = await openMetadataStore({ dataDir });
    fixture = await createTenantFixture(store);
  });
  after(async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a verified credential is cached: the second request costs no signature recovery', async () => {
    const auth = authenticator();
    const headers = asHeaders(await signIn(fixture.ownerWallet, DOMAIN));
    await auth.authenticate(headers);
    assert.equal(auth.signatures.misses, 1);
    await auth.authenticate(headers);
    await auth.authenticate(headers);
    assert.equal(auth.signatures.hits, 2);
    assert.equal(auth.signatures.misses, 1);
  });

  test('the cache is bounded and never outlives the message', async () => {
    const auth = authenticator({ AUTH_CACHE_SIZE: '3' });
    for (let i = 0; i < 6; i++) {
      await auth.authenticate(asHeaders(await signIn(fixture.ownerWallet, DOMAIN, { nonce: `nonce000000${i}` })));
    }
    assert.equal(auth.signatures.size, 3);

    const issuedAt = new Date(clock);
    const headers = asHeaders(await signIn(fixture.ownerWallet, DOMAIN, { issuedAt, expirationTime: new Date(clock + 60_000) }));
    assert.equal(await codeOf(auth.authenticate(headers)), 'OK');
    const saved = clock;
    clock += 60_000 + 31_000; // past expiry and the 30 s skew
    try {
      assert.equal(await codeOf(auth.authenticate(headers)), 'AUTH_MESSAGE_EXPIRED');
    } finally {
      clock = saved;
    }
  });

  test('a bad signature is not cached as good, and a good one is not poisoned by a bad one', async () => {
    const auth = authenticator();
    const good = asHeaders(await signIn(fixture.ownerWallet, DOMAIN));
    const forged = { ...good, sig: asHeaders(await signIn(newWallet(), DOMAIN)).sig };
    assert.equal(await codeOf(auth.authenticate(forged)), 'AUTH_SIGNATURE_INVALID');
    assert.equal(await codeOf(auth.authenticate(forged)), 'AUTH_SIGNATURE_INVALID');
    assert.equal(await codeOf(auth.authenticate(good)), 'OK');
  });

  test('a cached signature vouches only for the exact wallet and message it was checked with', async () => {
    const auth = authenticator();
    const good = asHeaders(await signIn(fixture.ownerWallet, DOMAIN));
    assert.equal(await codeOf(auth.authenticate(good)), 'OK');
    // The same X-SIG beside another message (same wallet, same rules otherwise) or another wallet.
    const otherMessage = asHeaders(await signIn(fixture.ownerWallet, DOMAIN, { nonce: 'othernonce000001' }));
    assert.equal(await codeOf(auth.authenticate({ ...otherMessage, sig: good.sig })), 'AUTH_SIGNATURE_INVALID');
    const other = newWallet();
    // (refused on the message's own address line, which only a full check reads)
    assert.equal(await codeOf(auth.authenticate({ ...good, wal: other.address, walletAddress: undefined })), 'AUTH_ADDRESS_MISMATCH');
    // A long X-MES (cached by its hash) is told apart from another long one just the same.
    const long = asHeaders(await signIn(fixture.ownerWallet, DOMAIN, { statement: 'x'.repeat(1500) }));
    const longer = asHeaders(await signIn(fixture.ownerWallet, DOMAIN, { statement: 'y'.repeat(1500) }));
    assert.ok(long.mes.length > 1024);
    assert.equal(await codeOf(auth.authenticate(long)), 'OK');
    assert.equal(await codeOf(auth.authenticate({ ...longer, sig: long.sig })), 'AUTH_SIGNATURE_INVALID');
    assert.equal(await codeOf(auth.authenticate(long)), 'OK');
    assert.equal(await codeOf(auth.authenticate(good)), 'OK');
  });

  test('the pure-JS fallback recovers the same signers as the native library', async () => {
    const native = createAddressRecoverer();
    const noble = createAddressRecoverer({ preferNative: false });
    assert.equal(native.implementation, 'native');
    assert.equal(noble.implementation, 'noble');
    const auth = new WalletAuthenticator({ config: loadConfig({ AUTH_DOMAINS: DOMAIN }).auth, store, recoverer: noble });
    assert.equal(await codeOf(auth.authenticate(asHeaders(await signIn(fixture.ownerWallet, DOMAIN)))), 'OK');
  });

  test('AUTH_CHAIN_IDS refuses a message naming another chain, before its signature is looked at', async () => {
    const auth = authenticator({ AUTH_CHAIN_IDS: '1,8453' });
    assert.equal(await codeOf(auth.authenticate(asHeaders(await signIn(fixture.ownerWallet, DOMAIN, { chainId: 8453 })))), 'OK');
    const other = asHeaders(await signIn(fixture.ownerWallet, DOMAIN, { chainId: 10 }));
    const refused = await outcomeOf(auth.authenticate(other));
    assert.equal(refused.code, 'AUTH_CHAIN_NOT_ALLOWED');
    assert.equal(refused.detail, 'The message names chain 10, which this service does not accept (accepted: 1, 8453)');
    const forged = { ...other, sig: asHeaders(await signIn(newWallet(), DOMAIN, { chainId: 10 })).sig };
    assert.equal(await codeOf(auth.authenticate(forged)), 'AUTH_CHAIN_NOT_ALLOWED');
    // Unset, any chain is accepted.
    assert.equal(await codeOf(authenticator().authenticate(other)), 'OK');
  });
});
