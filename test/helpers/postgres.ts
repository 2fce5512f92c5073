import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { serverNeeded } from './backends.ts';

export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TEST_DATABASE_PREFIX = 'wa_test_';
// Test files run in parallel processes; a file that restarts the server announces it here.
const RESTART_MARKER = path.join(os.tmpdir(), 'wallet-admin-postgres-restart.lock');
const STALE_MARKER_MS = 120_000;
const SERVER_WAIT_MS = 20_000;
const run = promisify(execFile);

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty PostgreSQL database on the test server, so that tests never share rows or schema. */
export async function createTestDatabase(): Promise<TestDatabase> {
  serverNeeded('PostgreSQL');
  await waitWhileRestartAnnounced();
  const name = `${TEST_DATABASE_PREFIX}${randomBytes(8).toString('hex')}`;
  await asAdmin((client) => client.query(`create database ${name}`));
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  // A password of its own unless the server needs the configured one: the test server trusts
  // loopback connections and ignores it, and every service started on this database then has a
  // password in its DATABASE_URL that its output is scanned for (see log-secrets.ts).
  if (url.password === '') url.password = `pw-${randomBytes(9).toString('base64url')}`;
  let dropped = false;
  return {
    name,
    url: url.href,
    async drop() {
      if (dropped) return;
      dropped = true;
      await asAdmin(async (client) => {
        // A pool the test forgot to close would otherwise block the drop.
        await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
        await client.query(`drop database if exists ${name}`);
      });
    },
  };
}

/**
 * Runs `work` (a server restart) once no other test database has connections, while new test
 * databases wait, so that test files running in parallel do not see the outage.
 */
export async function whileNoOtherTestUsesPostgres<T>(ownDatabase: string, work: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  await announceRestart(deadline);
  try {
    while ((await otherTestConnections(ownDatabase)) > 0 && Date.now() < deadline) await sleep(100);
    return await work();
  } finally {
    await rm(RESTART_MARKER, { force: true });
  }
}

/**
 * Makes a test database refuse writes, or take them again, as a failover to a hot standby does:
 * every new session is read-only (default_transaction_read_only), and the open ones are ended so
 * that the service's pool reconnects under the new setting. Only this database is touched.
 */
export async function setReadOnly(databaseUrl: string, readOnly: boolean): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  if (!name.startsWith(TEST_DATABASE_PREFIX)) throw new Error(`${name} is not a test database`);
  await asAdmin(async (client) => {
    await client.query(
      `alter database ${name} ${readOnly ? 'set default_transaction_read_only = on' : 'reset default_transaction_read_only'}`,
    );
    await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
  });
}

/** Starts the local cluster if it is down and waits until it accepts connections. */
export async function startPostgresIfDown(): Promise<void> {
  serverNeeded('PostgreSQL');
  if (await acceptsConnections()) return;
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', clusterVersion(), 'main', 'start']).catch(() => {
    // "already running" (it was just starting up) also lands here; the wait below decides.
  });
  await waitForServer();
}

export function clusterVersion(): string {
  const versions = readdirSync('/etc/postgresql');
  if (versions.length !== 1) throw new Error(`Expected one PostgreSQL version under /etc/postgresql, found ${versions.join(', ')}`);
  return versions[0]!;
}

async function otherTestConnections(ownDatabase: string): Promise<number> {
  return asAdmin(async (client) => {
    const { rows } = await client.query<{ count: string }>(
      `select count(*) from pg_stat_activity where datname like '${TEST_DATABASE_PREFIX}%' and datname <> $1`,
      [ownDatabase],
    );
    return Number(rows[0]?.count ?? 0);
  });
}

async function announceRestart(deadline: number): Promise<void> {
  for (;;) {
    try {
      await writeFile(RESTART_MARKER, String(process.pid), { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (await isStale()) await rm(RESTART_MARKER, { force: true });
      else if (Date.now() > deadline) throw new Error(`Another test is restarting PostgreSQL (${RESTART_MARKER})`);
      else await sleep(100);
    }
  }
}

async function waitWhileRestartAnnounced(): Promise<void> {
  if (await isStale()) return;
  while (!(await isStale())) await sleep(100);
  await waitForServer();
}

/** A marker left by a crashed run must not block tests for ever. Absent counts as stale. */
async function isStale(): Promise<boolean> {
  try {
    return Date.now() - (await stat(RESTART_MARKER)).mtimeMs > STALE_MARKER_MS;
  } catch {
    return true;
  }
}

async function waitForServer(): Promise<void> {
  const deadline = Date.now() + SERVER_WAIT_MS;
  while (!(await acceptsConnections())) {
    if (Date.now() > deadline)
      throw new Error(`PostgreSQL at ${ADMIN_DATABASE_URL} did not accept connections within ${SERVER_WAIT_MS} ms`);
    await sleep(100);
  }
}

async function acceptsConnections(): Promise<boolean> {
  try {
    await asAdmin((client) => client.query('select 1'));
    return true;
  } catch {
    return false;
  }
}

async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 5000 });
  // A connection the server drops while we hold it must fail our query, not crash the test process.
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
