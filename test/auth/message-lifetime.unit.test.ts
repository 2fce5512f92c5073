import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAddressRecoverer } from '../../src/auth/signature/address-recoverer.ts';
import { WalletAuthenticator } from '../../src/auth/wallet-authenticator.ts';
import { loadConfig } from '../../src/config/config.ts';
import { isAppError } from '../../src/errors/app-error.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { ENGINES } from '../helpers/backends.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { createStorage, type Storage } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const DOMAIN = 'admin.example.com';
const MAX_AGE_S = 3600;
const SKEW_S = 30;
const MIN = 60_000;
const HOUR = 3_600_000;

/**
 * AUTH_MAX_AGE bounds every SIWE message: it authenticates until the earlier of its Expiration
 * Time and Issued At + AUTH_MAX_AGE (each with the clock skew), and never before its Not Before.
 * Every combination of the three fields is held against that rule, computed here on its own, at
 * the first request and again at the last millisecond and the first one past the end — after the
 * verified credential was cached, so that the cache is shown never to outlive the message.
 */
for (const engine of ENGINES) {
  describe(`the lifetime of a signed message (AUTH_MAX_AGE bounds every message) (${engine})`, () => {
    let storage: Storage;
    let store: MetadataStore;
    let fixture: TenantFixture;
    const start = Date.UTC(2026, 10, 25, 12, 0, 0);
    let clock = start;

    before(async () => {
      storage = await createStorage(engine);
      store = await openMetadataStore({ dataDir: storage.dataDir, databaseUrl: storage.databaseUrl });
      fixture = await createTenantFixture(store);
    });
    after(async () => {
      await store.close();
      await storage.drop();
    });

    const outcome = async (auth: WalletAuthenticator, headers: Awaited<ReturnType<typeof signIn>>, at: number) => {
      clock = at;
      try {
        await auth.authenticate({ wal: headers['X-WAL'], sig: headers['X-SIG'], mes: headers['X-MES'], walletAddress: undefined });
        return 'OK';
      } catch (error) {
        assert.ok(isAppError(error), String(error));
        return error.code;
      }
    };

    const ISSUED_AT = {
      'issued 10 min ago': start - 10 * MIN,
      'issued 2 h ago (beyond AUTH_MAX_AGE)': start - 2 * HOUR,
      'issued 10 s ahead (within the skew)': start + 10_000,
      'issued 5 min ahead (beyond the skew)': start + 5 * MIN,
    };
    const EXPIRATION = {
      'no expiration': null,
      'expired 5 min ago': start - 5 * MIN,
      'expires in 10 min': start + 10 * MIN,
      'expires in 2100': Date.UTC(2100, 0, 1),
    };
    const NOT_BEFORE = {
      'no not-before': undefined,
      'not before 5 min ago': start - 5 * MIN,
      'not before 5 min from now': start + 5 * MIN,
    };

    /** The rule, independently: the first refusal in the order the service checks, else the end of validity. */
    function expected(issuedAt: number, expiration: number | null, notBefore: number | undefined): { code: string; until?: number } {
      const skew = SKEW_S * 1000;
      if (notBefore !== undefined && notBefore > start + skew) return { code: 'AUTH_MESSAGE_NOT_YET_VALID' };
      if (expiration !== null && expiration + skew <= start) return { code: 'AUTH_MESSAGE_EXPIRED' };
      if (issuedAt > start + skew) return { code: 'AUTH_MESSAGE_NOT_YET_VALID' };
      const maxAgeEnd = issuedAt + MAX_AGE_S * 1000 + skew;
      if (maxAgeEnd <= start) return { code: 'AUTH_MESSAGE_EXPIRED' };
      return { code: 'OK', until: Math.min(maxAgeEnd, expiration === null ? Number.POSITIVE_INFINITY : expiration + skew) };
    }

    let nonce = 0;
    for (const [issuedName, issuedAt] of Object.entries(ISSUED_AT)) {
      for (const [expirationName, expiration] of Object.entries(EXPIRATION)) {
        for (const [notBeforeName, notBefore] of Object.entries(NOT_BEFORE)) {
          const want = expected(issuedAt, expiration, notBefore);
          test(`${issuedName}, ${expirationName}, ${notBeforeName}: ${want.code}`, async () => {
            const auth = new WalletAuthenticator({
              config: loadConfig({ AUTH_DOMAINS: DOMAIN, AUTH_MAX_AGE: String(MAX_AGE_S), AUTH_CLOCK_SKEW: String(SKEW_S) }).auth,
              store,
              recoverer: createAddressRecoverer(),
              now: () => clock,
            });
            const headers = await signIn(fixture.ownerWallet, DOMAIN, {
              issuedAt: new Date(issuedAt),
              expirationTime: expiration === null ? null : new Date(expiration),
              notBefore: notBefore === undefined ? undefined : new Date(notBefore),
              nonce: `lifetime${String(nonce++).padStart(8, '0')}`,
            });
            assert.equal(await outcome(auth, headers, start), want.code);
            if (want.until === undefined) return;
            assert.equal(await outcome(auth, headers, want.until - 1), 'OK', 'the last millisecond of validity (a cache hit)');
            assert.equal(auth.signatures.hits, 1, 'the second request was answered from the cache');
            assert.equal(await outcome(auth, headers, want.until), 'AUTH_MESSAGE_EXPIRED', 'the first millisecond past it');
          });
        }
      }
    }

    test('a message expiring in 2100 stops at Issued At + AUTH_MAX_AGE, and the refusal names the bound', async () => {
      const auth = new WalletAuthenticator({
        config: loadConfig({ AUTH_DOMAINS: DOMAIN, AUTH_MAX_AGE: String(MAX_AGE_S), AUTH_CLOCK_SKEW: '0' }).auth,
        store,
        recoverer: createAddressRecoverer(),
        now: () => clock,
      });
      const headers = await signIn(fixture.ownerWallet, DOMAIN, {
        issuedAt: new Date(start),
        expirationTime: new Date(Date.UTC(2100, 0, 1)),
      });
      clock = start + MAX_AGE_S * 1000;
      await assert.rejects(
        auth.authenticate({ wal: headers['X-WAL'], sig: headers['X-SIG'], mes: headers['X-MES'], walletAddress: undefined }),
        (error: unknown) =>
          isAppError(error) && error.code === 'AUTH_MESSAGE_EXPIRED' && /AUTH_MAX_AGE \(3600 seconds\)/.test(error.message),
      );
    });
  });
}
