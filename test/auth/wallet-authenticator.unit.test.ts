import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ContractWalletVerifier } from '../../src/auth/contract-wallet-verifier.ts';
import { createAddressRecoverer } from '../../src/auth/signature/address-recoverer.ts';
import { WalletAuthenticator } from '../../src/auth/wallet-authenticator.ts';
import { loadConfig } from '../../src/config/config.ts';
import { isAppError } from '../../src/errors/app-error.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { authHeaders, newWallet, signIn } from '../helpers/wallets.ts';

const DOMAIN = 'admin.example.com';

describe('WalletAuthenticator (no HTTP)', () => {
  let dataDir: string;
  let store: MetadataStore;
  let fixture: TenantFixture;
  // Set when the tests start, not when the file is loaded: in a process that runs several files
  // (the unit tier's), that can be long before, and signIn dates its messages by the real clock.
  let clock: number;

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
    clock = Date.now();
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

  test('a sign-out everywhere ends the messages signed before it: to the millisecond, a whole second counting as its end', async () => {
    const auth = authenticator({ AUTH_STATE_REFRESH: '0' });
    const admin = await store.createAdmin({ tenantId: fixture.tenant.id, wallet: newWallet().address, displayName: 'Signs out' });
    const wallet = newWallet();
    await store.setAdminWallet(admin.id, wallet.address);
    const { signedOutBefore } = await store.signOutEverywhere(admin.id);
    const cut = signedOutBefore!;
    clock = cut + 1000;
    const signedAt = async (at: number, text: (d: Date) => string = (d) => d.toISOString()) => {
      const headers = asHeaders(
        await signIn(wallet, DOMAIN, { issuedAt: new Date(at), nonce: `cut${at}x${Math.random().toString(36).slice(2, 8)}` }),
      );
      // viem writes Issued At with milliseconds; a whole-second one is written here by hand.
      const message = Buffer.from(headers.mes.slice('base64:'.length), 'base64').toString('utf8');
      const rewritten = message.replace(/Issued At: \S+/, `Issued At: ${text(new Date(at))}`);
      return asHeaders(await authHeaders(wallet, rewritten));
    };
    assert.equal(await codeOf(auth.authenticate(await signedAt(cut - 1))), 'AUTH_MESSAGE_REVOKED', 'a millisecond before');
    assert.equal(await codeOf(auth.authenticate(await signedAt(cut))), 'OK', 'at the instant');
    const wholeSecond = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const secondOfCut = Math.floor(cut / 1000) * 1000;
    assert.equal(
      await codeOf(auth.authenticate(await signedAt(secondOfCut - 1000, wholeSecond))),
      'AUTH_MESSAGE_REVOKED',
      'the second before',
    );
    assert.equal(await codeOf(auth.authenticate(await signedAt(secondOfCut, wholeSecond))), 'OK', 'its own second may have been after it');
  });

  test('a message dated ahead of the server’s clock counts as signed when the service first saw it: ended by a sign-out after that', async () => {
    const auth = authenticator({ AUTH_STATE_REFRESH: '0', AUTH_CLOCK_SKEW: '30' });
    const wallet = newWallet();
    const admin = await store.createAdmin({ tenantId: fixture.tenant.id, wallet: wallet.address, displayName: 'Fast clock' });
    const message = async (issuedAt: number) =>
      asHeaders(
        await signIn(wallet, DOMAIN, { issuedAt: new Date(issuedAt), nonce: `ahead${issuedAt}x${Math.random().toString(36).slice(2, 8)}` }),
      );
    // A client whose clock runs 20 s ahead signs in 5 s before the sign-out: its Issued At is after the cut.
    const seenAt = Date.now() - 5_000;
    const early = await message(seenAt + 20_000);
    clock = seenAt;
    assert.equal(await codeOf(auth.authenticate(early)), 'OK', 'within the clock skew');
    const cut = (await store.signOutEverywhere(admin.id)).signedOutBefore!;
    assert.ok(cut > seenAt && cut < seenAt + 20_000, 'the cut falls between the sign-in and its Issued At');
    clock = cut + 1_000;
    assert.equal(await codeOf(auth.authenticate(early)), 'AUTH_MESSAGE_REVOKED', 'seen before the sign-out: ended by it');
    // The other direction: signed right after the sign-out, by the same fast clock or by an exact one, it works.
    clock = cut + 100;
    assert.equal(await codeOf(auth.authenticate(await message(cut + 20_100))), 'OK', 'a fast clock, right after the sign-out');
    assert.equal(await codeOf(auth.authenticate(await message(cut + 50))), 'OK', 'an exact clock, right after the sign-out');
    clock = cut + 1_000;
    assert.equal(await codeOf(auth.authenticate(early)), 'AUTH_MESSAGE_REVOKED', 'and the early one stays ended');
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

  describe('contract wallets: which signatures reach the chain', () => {
    /** A verifier serving chain 31337 only, recording what it is asked and answering `approves`. */
    function recordingVerifier(approves: boolean) {
      const asked: { chainId: number; address: string; signature: string }[] = [];
      const verifier: ContractWalletVerifier = {
        codeCache: { hits: 0, misses: 0 },
        mayVerifyOn: (chainId) => chainId === 31337,
        async verify(chainId, address, _message, signature) {
          asked.push({ chainId, address, signature });
          return approves;
        },
        async verifyDigest(chainId, address, _digest, signature) {
          asked.push({ chainId, address, signature });
          return approves;
        },
      };
      const auth = new WalletAuthenticator({
        config: loadConfig({ AUTH_DOMAINS: DOMAIN, AUTH_PLAIN_MESSAGES: 'any' }).auth,
        store,
        recoverer: createAddressRecoverer(),
        contractWallets: verifier,
        now: () => clock,
      });
      return { auth, asked };
    }
    /** Headers claiming `wallet` but signed by a fresh key: a well-formed 65-byte signature that recovers elsewhere. */
    const wrongKey = async (wallet: string, overrides: Parameters<typeof signIn>[2] = {}) => {
      const signed = asHeaders(await signIn({ ...newWallet(), address: wallet as `0x${string}` }, DOMAIN, overrides));
      return { ...signed, walletAddress: undefined };
    };

    test("an admin's wallet is asked on the message's own chain; an unknown wallet never, with the same answer", async () => {
      const { auth, asked } = recordingVerifier(false);
      const admin = await outcomeOf(auth.authenticate(await wrongKey(fixture.ownerWallet.address, { chainId: 31337 })));
      assert.equal(admin.code, 'AUTH_SIGNATURE_INVALID');
      assert.deepEqual(
        asked.map((a) => [a.chainId, a.address]),
        [[31337, fixture.ownerWallet.address]],
      );
      const unknown = await outcomeOf(auth.authenticate(await wrongKey(newWallet().address, { chainId: 31337 })));
      assert.deepEqual(unknown, admin, 'the answer does not tell an admin wallet from another');
      assert.equal(asked.length, 1, 'the unknown wallet was not asked about');
    });

    test('a chain without an RPC is never asked: the signature is an EOA one only, and the detail says why', async () => {
      const { auth, asked } = recordingVerifier(true);
      const refused = await outcomeOf(auth.authenticate(await wrongKey(fixture.ownerWallet.address, { chainId: 1 })));
      assert.equal(refused.code, 'AUTH_SIGNATURE_INVALID');
      assert.match(refused.detail, /no RPC is configured for chain 1/);
      assert.deepEqual(asked, []);
    });

    test('a plain message names no chain: checked by recovery only, never asked', async () => {
      const { auth, asked } = recordingVerifier(true);
      const message = `Sign in at ${new Date(clock).toISOString()}`;
      const plain = { ...asHeaders(await authHeaders(newWallet(), message)), wal: fixture.ownerWallet.address, walletAddress: undefined };
      assert.equal(await codeOf(auth.authenticate(plain)), 'AUTH_SIGNATURE_INVALID');
      assert.equal(await codeOf(auth.authenticate({ ...plain, sig: `0x${'ab'.repeat(100)}` })), 'AUTH_SIGNATURE_MALFORMED');
      assert.equal(await codeOf(auth.authenticate(asHeaders(await authHeaders(fixture.ownerWallet, message)))), 'OK');
      assert.deepEqual(asked, []);
    });

    test("a signature of another length is a contract wallet's to approve, on a chain with an RPC; a key's never asks", async () => {
      const { auth, asked } = recordingVerifier(true);
      const signed = await wrongKey(fixture.ownerWallet.address, { chainId: 31337 });
      const long = `0x${'ab'.repeat(100)}`;
      assert.equal(await codeOf(auth.authenticate({ ...signed, sig: long })), 'OK');
      assert.deepEqual(
        asked.map((a) => a.signature),
        [long],
      );
      assert.equal(await codeOf(auth.authenticate(asHeaders(await signIn(fixture.ownerWallet, DOMAIN, { chainId: 31337 })))), 'OK');
      assert.equal(asked.length, 1, 'a key-signed message asks nothing');
    });
  });
});
