import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import {
  clusterVersion,
  createTestDatabase,
  startPostgresIfDown,
  type TestDatabase,
  whileNoOtherTestUsesPostgres,
} from '../helpers/postgres.ts';
import { randomWallet } from './contract/support.ts';

const run = promisify(execFile);
const QUERY_INTERVAL_MS = 20;
const RECOVERY_LIMIT_MS = 5000;
// connectionTimeoutMillis of the store's pool, plus slack: no query may wait longer than this.
const LONGEST_QUERY_MS = 6000;

interface Outcome {
  startedAt: number;
  ms: number;
  error?: unknown;
}

let database: TestDatabase | undefined;
let store: MetadataStore | undefined;
const poolErrors: string[] = [];

before(async () => {
  await startPostgresIfDown();
  database = await createTestDatabase();
  store = await openMetadataStore({
    dataDir: os.tmpdir(),
    databaseUrl: database.url,
    logger: { warn() {}, error: (_obj, msg) => poolErrors.push(msg) },
  });
});

after(async () => {
  // Whatever happened above, leave a running server for the next test file.
  await startPostgresIfDown();
  await store?.close();
  await database?.drop();
});

test('a PostgreSQL restart fails queries quickly and the pool recovers on its own', async () => {
  const s = store!;
  const tenant = await s.createTenant({ name: 'survives restarts' });
  // Several idle pooled connections: the restart must hit clients that sit in the pool, the case
  // that crashes a process without a pool error listener.
  await Promise.all(Array.from({ length: 5 }, () => s.ping()));

  const outcomes: Outcome[] = [];
  let querying = true;
  const queries = (async () => {
    while (querying) {
      const startedAt = performance.now();
      try {
        await s.getTenant(tenant.id);
        outcomes.push({ startedAt, ms: performance.now() - startedAt });
      } catch (error) {
        outcomes.push({ startedAt, ms: performance.now() - startedAt, error });
      }
      await sleep(QUERY_INTERVAL_MS);
    }
  })();

  let restartedAt = 0;
  let restartReturnedAt = 0;
  let serverUpAt = 0;
  try {
    await whileNoOtherTestUsesPostgres(database!.name, async () => {
      restartedAt = performance.now();
      // pg_ctlcluster returns well after the server accepts connections again (it polls slowly),
      // so an independent probe times the moment the server is back.
      const probe = serverAcceptsAgain(database!.url, () => outcomes.some((o) => o.error));
      probe.catch(() => {}); // awaited below; this only keeps an early restart failure from leaving it unhandled
      await run('pg_ctlcluster', ['--skip-systemctl-redirect', clusterVersion(), 'main', 'restart', '-m', 'fast']);
      restartReturnedAt = performance.now();
      serverUpAt = await probe;
      const deadline = serverUpAt + RECOVERY_LIMIT_MS;
      while (!outcomes.some((o) => o.startedAt >= serverUpAt && !o.error) && performance.now() < deadline) await sleep(10);
    });
  } finally {
    querying = false;
    await queries;
  }

  // Reaching this line is itself the "no crash" check: an unhandled pg 'error' event would have
  // killed this test process during the restart.
  const failures = outcomes.filter((o) => o.error);
  const firstFailure = failures[0];
  const lastFailure = failures.at(-1);
  assert.ok(firstFailure && lastFailure, 'some query ran while the server was down and failed');
  assert.ok(
    failures.every((o) => o.error instanceof Error),
    'failures are errors',
  );
  const slowest = Math.max(...outcomes.map((o) => o.ms));
  assert.ok(slowest < LONGEST_QUERY_MS, `no query hung (slowest took ${slowest.toFixed(0)} ms)`);
  const recovered = outcomes.find((o) => o.startedAt > lastFailure.startedAt && !o.error);
  assert.ok(
    recovered && recovered.startedAt + recovered.ms < serverUpAt + RECOVERY_LIMIT_MS,
    `queries succeed within ${RECOVERY_LIMIT_MS} ms of the server being back`,
  );
  assert.ok(poolErrors.length > 0, 'the pool reported the connections it lost');

  const ms = (value: number) => `${Math.max(0, value).toFixed(0)} ms`;
  console.log(
    `PostgreSQL restart: store queries failed for ${ms(recovered.startedAt + recovered.ms - firstFailure.startedAt)} ` +
      `(server refused connections for ${ms(serverUpAt - firstFailure.startedAt)}); ` +
      `the store recovered ${ms(recovered.startedAt + recovered.ms - serverUpAt)} after the server accepted connections again ` +
      `(0 = no later than an independent probe); queries every ${QUERY_INTERVAL_MS} ms: ${failures.length} of ${outcomes.length} failed, ` +
      `slowest ${ms(slowest)}; pg_ctlcluster restart took ${ms(restartReturnedAt - restartedAt)}; pool errors logged: ${poolErrors.length}`,
  );

  // Writes and transactions work again too, not just the one query.
  const admin = await s.createAdmin({
    tenantId: tenant.id,
    wallet: randomWallet(),
    displayName: 'After restart',
    permissions: ['files:read'],
  });
  assert.deepEqual((await s.grantPermission(admin.id, 'files:write')).permissions, ['files:read', 'files:write']);
});

/** Resolves with the first instant, after `wentDown()` turns true, at which a new connection succeeds. */
async function serverAcceptsAgain(url: string, wentDown: () => boolean, timeoutMs = 10_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  const giveUpIfLate = (what: string) => {
    if (performance.now() > deadline) throw new Error(`PostgreSQL ${what} within ${timeoutMs} ms of the restart`);
  };
  while (!wentDown()) {
    giveUpIfLate('never refused a query');
    await sleep(2);
  }
  for (;;) {
    giveUpIfLate('did not accept connections again');
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('select 1');
      const at = performance.now();
      await client.end();
      return at;
    } catch {
      await client.end().catch(() => {});
      await sleep(5);
    }
  }
}
