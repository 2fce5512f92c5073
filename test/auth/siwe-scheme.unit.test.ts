import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createAddressRecoverer } from '../../src/auth/signature/address-recoverer.ts';
import { WalletAuthenticator } from '../../src/auth/wallet-authenticator.ts';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { isAppError } from '../../src/errors/app-error.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { signIn } from '../helpers/wallets.ts';

describe("the SIWE message's optional scheme", () => {
  let dataDir: string;
  let store: MetadataStore;
  let fixture: TenantFixture;

  /** The outcome of signing in to `domain` with `scheme` (undefined: none) under the settings `env`: 'OK', or the code and detail. */
  const signInWith = async (env: Record<string, string>, domain: string, scheme: string | undefined) => {
    const authenticator = new WalletAuthenticator({ config: loadConfig(env).auth, store, recoverer: createAddressRecoverer() });
    const headers = await signIn(fixture.ownerWallet, domain, scheme === undefined ? {} : { scheme });
    try {
      await authenticator.authenticate({ wal: headers['X-WAL'], sig: headers['X-SIG'], mes: headers['X-MES'], walletAddress: undefined });
      return 'OK';
    } catch (error) {
      assert.ok(isAppError(error), String(error));
      return `${error.code}: ${error.message}`;
    }
  };

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-scheme-'));
    store = await openMetadataStore({ dataDir });
    fixture = await createTenantFixture(store);
  });
  after(async () => {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('on the loopback default (http://127.0.0.1:PORT): http or none signs in; javascript://, https:// and others are refused, naming http', async () => {
    const env = { PORT: '8080' };
    for (const domain of ['127.0.0.1:8080', 'localhost:8080']) {
      assert.equal(await signInWith(env, domain, undefined), 'OK', domain);
      assert.equal(await signInWith(env, domain, 'http'), 'OK', domain);
      assert.equal(await signInWith(env, domain, 'HTTP'), 'OK', 'schemes are case-insensitive (RFC 3986)');
      for (const scheme of ['javascript', 'https', 'data', 'file', 'ws', 'chrome-extension']) {
        const outcome = await signInWith(env, domain, scheme);
        assert.match(outcome, /^AUTH_DOMAIN_MISMATCH: /, `${scheme}://${domain}`);
        assert.ok(outcome.includes(`"${scheme}://${domain}"`), outcome);
        assert.match(outcome, /this service's scheme there is "http"/, outcome);
      }
    }
  });

  test('behind https (PUBLIC_BASE_URL=https://…): https or none signs in, http:// is refused naming https', async () => {
    const env = { PUBLIC_BASE_URL: 'https://admin.example.com' };
    assert.equal(await signInWith(env, 'admin.example.com', undefined), 'OK');
    assert.equal(await signInWith(env, 'admin.example.com', 'https'), 'OK');
    const downgraded = await signInWith(env, 'admin.example.com', 'http');
    assert.match(downgraded, /^AUTH_DOMAIN_MISMATCH: .*"http:\/\/admin\.example\.com".*scheme there is "https"/);
    assert.match(await signInWith(env, 'admin.example.com', 'javascript'), /^AUTH_DOMAIN_MISMATCH: /);
  });

  test('an AUTH_DOMAINS entry may carry its own scheme; one without takes the scheme of PUBLIC_BASE_URL', async () => {
    const env = {
      PUBLIC_BASE_URL: 'https://admin.example.com',
      AUTH_DOMAINS: 'admin.example.com, http://localhost:3000, HTTPS://Other.Example:8443/, http://both.example, https://both.example',
    };
    const config = loadConfig(env).auth;
    assert.deepEqual(config.domains, ['admin.example.com', 'localhost:3000', 'other.example:8443', 'both.example']);
    assert.deepEqual(
      config.domainSchemes,
      new Map([
        ['admin.example.com', ['https']],
        ['localhost:3000', ['http']],
        ['other.example:8443', ['https']],
        ['both.example', ['http', 'https']],
      ]),
    );
    assert.equal(await signInWith(env, 'localhost:3000', 'http'), 'OK');
    assert.match(await signInWith(env, 'localhost:3000', 'https'), /scheme there is "http"/);
    assert.equal(await signInWith(env, 'other.example:8443', 'https'), 'OK');
    assert.equal(await signInWith(env, 'both.example', 'http'), 'OK');
    assert.equal(await signInWith(env, 'both.example', 'https'), 'OK');
    assert.match(await signInWith(env, 'both.example', 'javascript'), /scheme there is "http" or "https"/);
    assert.equal(await signInWith(env, 'admin.example.com', undefined), 'OK');
    assert.match(await signInWith(env, 'admin.example.com', 'http'), /AUTH_DOMAIN_MISMATCH/);
  });

  test('an AUTH_DOMAINS entry with another scheme, a path or credentials stops start-up, naming it', () => {
    for (const entry of [
      'javascript://admin.example.com',
      'ftp://admin.example.com',
      'https://admin.example.com/path',
      'https://',
      'admin.example.com/x',
    ]) {
      assert.throws(
        () => loadConfig({ AUTH_DOMAINS: entry }),
        (error: unknown) => error instanceof ConfigError && /AUTH_DOMAINS entry/.test(error.message),
        entry,
      );
    }
    assert.throws(
      () => loadConfig({ AUTH_DOMAINS: 'https://user:hunter2@admin.example.com' }),
      (error: unknown) => error instanceof ConfigError && /AUTH_DOMAINS entry/.test(error.message) && !error.message.includes('hunter2'),
    );
  });
});
