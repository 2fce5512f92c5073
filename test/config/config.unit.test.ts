import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import type { Env } from '../../src/config/env-readers.ts';
import { EnvReader } from '../../src/config/env-readers.ts';
import { redactCredentialsIn } from '../../src/config/redaction.ts';

describe('configuration', () => {
  test('embedded defaults', () => {
    const config = loadConfig({});
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8080);
    assert.equal(config.dataDir, path.resolve('data'));
    assert.equal(config.publicBaseUrl, 'http://127.0.0.1:8080');
    // A browser on this machine may open http://localhost:8080 as well: both are accepted, the listening host first.
    assert.deepEqual(config.auth.domains, ['127.0.0.1:8080', 'localhost:8080']);
    assert.equal(config.auth.clockSkewSeconds, 30);
    assert.equal(config.auth.maxAgeSeconds, 86400);
    assert.equal(config.auth.plainMessages, 'off');
    assert.equal(config.auth.requireServerNonce, false);
    assert.equal(config.databaseUrl, undefined);
    assert.deepEqual(config.corsOrigins, []);
  });

  test('the auth domain follows PUBLIC_BASE_URL, port included; lists are comma-separated', () => {
    assert.deepEqual(loadConfig({ PUBLIC_BASE_URL: 'https://admin.example.com/' }).auth.domains, ['admin.example.com']);
    assert.deepEqual(loadConfig({ PUBLIC_BASE_URL: 'http://localhost:3000' }).auth.domains, ['localhost:3000']);
    const config = loadConfig({ AUTH_DOMAINS: 'a.example, B.example:8443', CORS_ORIGINS: 'https://x.example,https://*.y.example' });
    assert.deepEqual(config.auth.domains, ['a.example', 'b.example:8443']);
    assert.deepEqual(config.corsOrigins, ['https://x.example', 'https://*.y.example']);
  });

  test('on a loopback HOST without PUBLIC_BASE_URL or AUTH_DOMAINS, both 127.0.0.1:PORT and localhost:PORT sign in', () => {
    assert.deepEqual(loadConfig({ PORT: '9000' }).auth.domains, ['127.0.0.1:9000', 'localhost:9000']);
    assert.deepEqual(loadConfig({ HOST: 'localhost', PORT: '3000' }).auth.domains, ['localhost:3000', '127.0.0.1:3000']);
    assert.deepEqual(loadConfig({ HOST: 'LocalHost' }).auth.domains, ['localhost:8080', '127.0.0.1:8080']);
    assert.deepEqual(loadConfig({ HOST: '::1', PORT: '8443' }).auth.domains, ['[::1]:8443', '127.0.0.1:8443', 'localhost:8443']);
  });

  test('a HOST that is not loopback, PUBLIC_BASE_URL or AUTH_DOMAINS keep the one domain they name', () => {
    assert.deepEqual(loadConfig({ HOST: '0.0.0.0' }).auth.domains, ['0.0.0.0:8080']);
    assert.deepEqual(loadConfig({ HOST: '192.0.2.10', PORT: '81' }).auth.domains, ['192.0.2.10:81']);
    assert.deepEqual(loadConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1:8080' }).auth.domains, ['127.0.0.1:8080']);
    assert.deepEqual(loadConfig({ HOST: 'localhost', PUBLIC_BASE_URL: 'http://localhost:8080' }).auth.domains, ['localhost:8080']);
    assert.deepEqual(loadConfig({ AUTH_DOMAINS: '127.0.0.1:8080' }).auth.domains, ['127.0.0.1:8080']);
    assert.deepEqual(loadConfig({ HOST: '::1', AUTH_DOMAINS: 'admin.example' }).auth.domains, ['admin.example']);
  });

  test('every bad value is reported at once, each by name', () => {
    const error = (() => {
      try {
        loadConfig({
          PORT: '99999',
          AUTH_CLOCK_SKEW: '-1',
          AUTH_PLAIN_MESSAGES: 'maybe',
          AUTH_REQUIRE_SERVER_NONCE: 'perhaps',
          DATABASE_URL: 'mysql://x',
          PUBLIC_BASE_URL: 'not a url',
          CORS_ORIGINS: '*',
          LOG_LEVEL: 'loud',
        });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(error instanceof ConfigError);
    for (const name of [
      'PORT',
      'AUTH_CLOCK_SKEW',
      'AUTH_PLAIN_MESSAGES',
      'AUTH_REQUIRE_SERVER_NONCE',
      'DATABASE_URL',
      'PUBLIC_BASE_URL',
      'CORS_ORIGINS',
      'LOG_LEVEL',
    ]) {
      assert.match(error.message, new RegExp(name), name);
    }
  });

  test('HOST: an IP address or a host name; anything else is refused by name, with an example, not an Invalid URL', () => {
    for (const host of ['0.0.0.0', '::', 'fe80::1', '192.0.2.10', 'localhost', 'admin.internal', 'wallet_admin', 'Admin.Example.']) {
      assert.equal(loadConfig({ HOST: host }).host, host, host);
    }
    for (const host of [
      '?probe?',
      'http://127.0.0.1',
      '127.0.0.1:8080',
      '[::1]',
      'fe80::1%eth0',
      'a b',
      '999.1.1.1',
      '-admin',
      'admin..internal',
    ]) {
      assert.throws(
        () => loadConfig({ HOST: host }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.problems.length === 1 &&
          error.problems[0]!.startsWith('HOST must be an IP address or a host name') &&
          error.problems[0]!.includes('such as 0.0.0.0') &&
          error.problems[0]!.includes(`got ${JSON.stringify(host)}`),
        host,
      );
    }
  });

  test('timeouts: REQUEST_TIMEOUT bounds the head, BODY_IDLE_TIMEOUT a stalled body; both documented defaults, both checked', () => {
    assert.equal(loadConfig({}).limits.requestTimeoutSeconds, 30);
    assert.equal(loadConfig({}).limits.bodyIdleSeconds, 30);
    const set = loadConfig({ REQUEST_TIMEOUT: '10', BODY_IDLE_TIMEOUT: '120' }).limits;
    assert.equal(set.requestTimeoutSeconds, 10);
    assert.equal(set.bodyIdleSeconds, 120);
    assert.throws(() => loadConfig({ BODY_IDLE_TIMEOUT: '0' }), /BODY_IDLE_TIMEOUT must be a whole number from 1 to 3600/);
    assert.throws(() => loadConfig({ BODY_IDLE_TIMEOUT: '3601' }), /BODY_IDLE_TIMEOUT/);
    assert.throws(() => loadConfig({ BODY_IDLE_TIMEOUT: '1.5' }), /BODY_IDLE_TIMEOUT/);
  });

  test('SHUTDOWN_TIMEOUT: how long a shutdown waits for requests in flight, 10 s by default, 0 to 3600', () => {
    assert.equal(loadConfig({}).shutdownTimeoutSeconds, 10);
    assert.equal(loadConfig({ SHUTDOWN_TIMEOUT: '0' }).shutdownTimeoutSeconds, 0);
    assert.equal(loadConfig({ SHUTDOWN_TIMEOUT: '45' }).shutdownTimeoutSeconds, 45);
    for (const bad of ['-1', '3601', '2.5', 'soon']) {
      assert.throws(() => loadConfig({ SHUTDOWN_TIMEOUT: bad }), /SHUTDOWN_TIMEOUT must be a whole number from 0 to 3600/, bad);
    }
  });

  test('restore URLs: signing on S3 needs no secret but at most 7 days; S3_PUBLIC_BASE_URL only with S3', () => {
    const s3 = { STORAGE: 's3', S3_BUCKET: 'files' };
    const presigned = loadConfig({
      ...s3,
      FILE_URL_SIGNING: 'true',
      FILE_URL_TTL: '604800',
      S3_PUBLIC_BASE_URL: 'https://cdn.example.com/files/',
    });
    assert.equal(presigned.files.urlSigning, true);
    assert.equal(presigned.storage.s3?.publicBaseUrl, 'https://cdn.example.com/files');
    assert.throws(() => loadConfig({ ...s3, FILE_URL_SIGNING: 'true', FILE_URL_TTL: '604801' }), /FILE_URL_TTL must be at most 604800/);
    assert.throws(() => loadConfig({ ...s3, FILE_URL_SIGNING: 'true', FILE_URL_SECRET: 'short' }), /FILE_URL_SECRET must be at least 32/);
    assert.throws(() => loadConfig({ FILE_URL_SIGNING: 'true' }), /FILE_URL_SECRET must be set/);
    assert.throws(() => loadConfig({ S3_PUBLIC_BASE_URL: 'https://cdn.example.com' }), /S3_PUBLIC_BASE_URL applies only to STORAGE=s3/);
    assert.throws(() => loadConfig({ ...s3, S3_PUBLIC_BASE_URL: 'ftp://cdn.example.com' }), /S3_PUBLIC_BASE_URL/);
  });

  test('S3_TIMEOUT: 60 s by default, never below BODY_IDLE_TIMEOUT (an upload idles the store connection as long as its body pauses)', () => {
    const s3 = { STORAGE: 's3', S3_BUCKET: 'files' };
    assert.equal(loadConfig(s3).storage.s3?.timeoutSeconds, 60);
    assert.equal(loadConfig({ ...s3, S3_TIMEOUT: '5', BODY_IDLE_TIMEOUT: '5' }).storage.s3?.timeoutSeconds, 5);
    assert.throws(
      () => loadConfig({ ...s3, S3_TIMEOUT: '20' }),
      /S3_TIMEOUT \(20\) must be at least BODY_IDLE_TIMEOUT \(30\): an upload's connection to the store idles while its body pauses/,
    );
    assert.throws(() => loadConfig({ ...s3, S3_TIMEOUT: '0' }), /S3_TIMEOUT must be a whole number from 1 to 3600/);
    assert.equal(loadConfig({ S3_TIMEOUT: '1' }).storage.s3, undefined, 'read only with STORAGE=s3');
  });

  test('AUTH_CHAIN_IDS: unset accepts any chain; otherwise positive whole numbers', () => {
    assert.equal(loadConfig({}).auth.chainIds, undefined);
    assert.deepEqual(loadConfig({ AUTH_CHAIN_IDS: '1, 8453,1' }).auth.chainIds, [1, 8453]);
    assert.throws(() => loadConfig({ AUTH_CHAIN_IDS: '1,0' }), /AUTH_CHAIN_IDS entries must be positive whole numbers \(got "0"\)/);
    assert.throws(() => loadConfig({ AUTH_CHAIN_IDS: 'mainnet' }), /AUTH_CHAIN_IDS/);
    assert.throws(() => loadConfig({ AUTH_CHAIN_IDS: '1.5' }), /AUTH_CHAIN_IDS/);
    assert.throws(() => loadConfig({ AUTH_CHAIN_IDS: '99999999999999999999' }), /AUTH_CHAIN_IDS/);
    assert.throws(() => loadConfig({ AUTH_CHAIN_IDS: ' , ' }), /AUTH_CHAIN_IDS must list at least one chain id/);
  });

  test('AUTH_RPC_URL: CHAIN=URL pairs, or one bare URL whose chain the node names; timeout and concurrency', () => {
    const unset = loadConfig({}).auth.rpc;
    assert.deepEqual(unset, { nodes: [], timeoutSeconds: 5, concurrency: 8 });
    assert.deepEqual(loadConfig({ AUTH_RPC_URL: 'http://127.0.0.1:8545' }).auth.rpc.nodes, [
      { chainId: undefined, url: 'http://127.0.0.1:8545/' },
    ]);
    // A bare URL may hold "=" in its query; only a leading "digits=" makes pairs.
    assert.deepEqual(loadConfig({ AUTH_RPC_URL: 'https://rpc.example/?key=abc' }).auth.rpc.nodes, [
      { chainId: undefined, url: 'https://rpc.example/?key=abc' },
    ]);
    assert.deepEqual(loadConfig({ AUTH_RPC_URL: '1=https://a.example/v2/key, 8453 = https://b.example' }).auth.rpc.nodes, [
      { chainId: 1, url: 'https://a.example/v2/key' },
      { chainId: 8453, url: 'https://b.example/' },
    ]);
    const set = loadConfig({ AUTH_RPC_URL: '1=https://a.example', AUTH_RPC_TIMEOUT: '2', AUTH_RPC_CONCURRENCY: '3' }).auth.rpc;
    assert.equal(set.timeoutSeconds, 2);
    assert.equal(set.concurrency, 3);
    assert.throws(() => loadConfig({ AUTH_RPC_TIMEOUT: '0' }), /AUTH_RPC_TIMEOUT must be a whole number from 1 to 60/);
    assert.throws(() => loadConfig({ AUTH_RPC_CONCURRENCY: '0' }), /AUTH_RPC_CONCURRENCY must be a whole number from 1 to 256/);
  });

  test('a bad AUTH_RPC_URL stops start-up, naming the chain or entry but never the URL, which may hold a secret', () => {
    const problemsOf = (value: string) => {
      try {
        loadConfig({ AUTH_RPC_URL: value });
      } catch (error) {
        assert.ok(error instanceof ConfigError);
        return error.message;
      }
      return assert.fail(`${value} was accepted`);
    };
    const secret = 's3cr3t';
    const cases: [string, RegExp][] = [
      [`ftp://user:${secret}@rpc.example`, /AUTH_RPC_URL must be an http: or https: URL, or CHAIN=URL pairs/],
      [`rpc.example/${secret}`, /AUTH_RPC_URL must be an http: or https: URL/],
      [`1=https://user:${secret}@a.example,1=https://b.example/${secret}`, /AUTH_RPC_URL names chain 1 more than once/],
      [`0=https://a.example/${secret}`, /AUTH_RPC_URL entry 1 must be CHAIN=URL with a positive whole-number chain id/],
      [`1=https://a.example,https://user:${secret}@b.example`, /AUTH_RPC_URL entry 2 must be CHAIN=URL/],
      [`1=https://a.example,x=https://b.example/${secret}`, /AUTH_RPC_URL entry 2 must be CHAIN=URL/],
      [`8453=ws://user:${secret}@b.example`, /AUTH_RPC_URL for chain 8453 must be an http: or https: URL/],
      [`8453=${secret}`, /AUTH_RPC_URL for chain 8453 must be an http: or https: URL/],
    ];
    for (const [value, expected] of cases) {
      const message = problemsOf(value);
      assert.match(message, expected, value);
      assert.doesNotMatch(message, new RegExp(secret), value);
    }
  });

  test('config is read only when asked (nothing at import time)', async () => {
    process.env.PORT = 'not-a-port';
    try {
      await import('../../src/http/app.ts');
      await import('../../src/service/service.ts');
    } finally {
      delete process.env.PORT;
    }
  });

  test('AUTH_FAIL_IPV6_PREFIX: 64 by default, 1 to 128', () => {
    assert.equal(loadConfig({}).auth.failIpv6Prefix, 64);
    assert.equal(loadConfig({ AUTH_FAIL_IPV6_PREFIX: '128' }).auth.failIpv6Prefix, 128);
    assert.equal(loadConfig({ AUTH_FAIL_IPV6_PREFIX: '48' }).auth.failIpv6Prefix, 48);
    for (const bad of ['0', '129', '64.5', 'sixty-four', '-1'])
      assert.throws(() => loadConfig({ AUTH_FAIL_IPV6_PREFIX: bad }), /AUTH_FAIL_IPV6_PREFIX must be a whole number from 1 to 128/, bad);
  });

  test('a start-up message about a URL setting names it and its host (an RPC URL not even that), never the password', () => {
    const secret = 'Sup3r-S3cret';
    const settings: [string, Env][] = [
      ['DATABASE_URL', {}],
      ['REDIS_URL', {}],
      ['AUTH_RPC_URL', {}],
      ['S3_ENDPOINT', { STORAGE: 's3', S3_BUCKET: 'files' }],
      ['PUBLIC_BASE_URL', {}],
      ['S3_PUBLIC_BASE_URL', { STORAGE: 's3', S3_BUCKET: 'files' }],
    ];
    const values = [
      // Malformed: these do not parse, so the credentials are found by pattern.
      `postgres://admin:${secret}@db.example.com:notaport/app`,
      `https://admin:${secret}@db.example.com:99999/`,
      `postgres://admin:pa/${secret}@db.example.com:5432/app`,
      `postgres://admin:${secret}@with@db.example.com:bad/app`,
      `redis://:${secret}@db.example.com:port`,
      `postgres://db.example.com:notaport/app?sslmode=require&password=${secret}`,
      `admin:${secret}@db.example.com/app`,
      // libpq's key=value form, which is no URL at all: each password key, quoted or not.
      `host=db.example.com user=admin password=${secret}`,
      `host=db.example.com password='${secret} with blanks' dbname=app`,
      `dbname=app passwd=${secret} host=db.example.com`,
      `host=db.example.com pass = ${secret}`,
      // Well-formed but of the wrong scheme.
      `mysql://admin:${secret}@db.example.com/app`,
      `ftp://admin:${secret}@db.example.com/`,
      `http://admin:${secret}@db.example.com/?token=${secret}`,
    ];
    for (const [name, context] of settings) {
      for (const value of values) {
        if (value.startsWith('http://') && name !== 'DATABASE_URL' && name !== 'REDIS_URL') continue; // an accepted value
        const message = configErrorOf({ ...context, [name]: value });
        assert.match(message, new RegExp(`${name} must be`), `${name}=${value}: ${message}`);
        assert.ok(!message.includes(secret), `${name}=${value} shows its password: ${message}`);
        // An RPC URL is not quoted at all: providers put their API key in the path (Infura's /v3/<key>).
        if (!value.startsWith('admin:') && name !== 'AUTH_RPC_URL') {
          assert.match(message, /db\.example\.com/, `${name}=${value}: the host is shown`);
        }
      }
    }
  });

  test('a message quoting a setting elsewhere (a driver, the CLI) hides key=value passwords and user:password@ wherever they stand', () => {
    const secret = 'Sup3r-S3cret';
    const texts = [
      `could not connect with "host=db.example.com user=app password=${secret}"`,
      `could not connect with host=db.example.com password='${secret} x' port=5432`,
      `connection to app:${secret}@db.example.com:5432 refused`,
      `(app:${secret}@db.example.com) refused`,
      `DATABASE_URL=postgres://app:${secret}@db.example.com/app?password=${secret} is unreachable`,
    ];
    for (const text of texts) {
      const shown = redactCredentialsIn(text);
      assert.ok(!shown.includes(secret), shown);
      assert.match(shown, /db\.example\.com/, 'the host stays');
    }
    assert.equal(redactCredentialsIn('at 12:30 the job ran: no credential here'), 'at 12:30 the job ran: no credential here');
  });

  test('a secret setting is never echoed by any reader, whatever it is read as', () => {
    for (const name of ['FILE_URL_SECRET', 'METRICS_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'SMTP_PASSWORD', 'VENDOR_API_KEY']) {
      const value = 'not-what-it-should-be-7f3a';
      const read = new EnvReader({ [name]: value });
      read.integer(name, 0, 0, 10);
      read.boolean(name, false);
      read.oneOf(name, ['a', 'b'], 'a');
      read.url(name, ['https:']);
      assert.equal(read.problems.length, 4, name);
      for (const problem of read.problems) {
        assert.match(problem, new RegExp(`^${name} `));
        assert.ok(!problem.includes(value), `${name}: ${problem}`);
      }
    }
    const short = configErrorOf({ FILE_URL_SIGNING: 'true', FILE_URL_SECRET: 'too-short-secret-value' });
    assert.match(short, /FILE_URL_SECRET/);
    assert.ok(!short.includes('too-short-secret-value'));
  });

  test('other values are still quoted, so that the operator sees what was wrong', () => {
    assert.match(configErrorOf({ PORT: 'eighty' }), /PORT must be a whole number from 0 to 65535 \(got "eighty"\)/);
    assert.match(configErrorOf({ DATABASE_URL: 'mysql://db.example.com/app' }), /got a mysql: URL: "mysql:\/\/db\.example\.com\/app"/);
    assert.match(configErrorOf({ CORS_ORIGINS: 'https://u:p4ss@x.example' }), /CORS_ORIGINS entry "https:\/\/\*\*\*@x\.example"/);
  });
});

function configErrorOf(env: Env): string {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail(`no ConfigError for ${JSON.stringify(env)}`);
}
