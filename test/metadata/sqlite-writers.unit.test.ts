import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Kysely, sql } from 'kysely';
import { AppError } from '../../src/errors/app-error.ts';
import type { Logger } from '../../src/logging/logger.ts';
import { openDatabase, openSqliteDatabase, SQLITE_FILE_NAME } from '../../src/metadata/database.ts';
import type { Database } from '../../src/metadata/schema.ts';

/**
 * Writers on one SQLite file — the service and the CLI on one DATA_DIR — wait for each other
 * instead of failing with SQLITE_BUSY, and waiting does not stop the waiting process's event loop.
 * Real files and real processes: the locks in question are SQLite's file locks between processes.
 */

const COUNTER_WORKER = fileURLToPath(new URL('../helpers/sqlite-counter-worker.ts', import.meta.url));
const LOCK_HOLDER = fileURLToPath(new URL('../helpers/sqlite-lock-holder.ts', import.meta.url));
const silent: Logger = { warn() {}, error() {} };

/** One more table beside the store's: the counter these tests write. */
type CounterTable = { counter: { id: number; value: number } };
type CounterDb = Kysely<Database & CounterTable>;

/** A tsx child with `env`; resolves once it has printed `signal`, and `exited` with its code. */
function startChild(file: string, env: Record<string, string>, signal: string) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', file], { env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  const signalled = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes(signal)) resolve();
    });
    void exited.then(({ code }) => reject(new Error(`${path.basename(file)} exited (${code}) before '${signal}':\n${stderr}`)));
  });
  return { child, signalled, exited };
}

/**
 * The event loop's longest stall while watching: a 10 ms interval's largest lateness. Timers are
 * what a blocked loop delays first, so this is the lag every request of the process would see.
 */
function watchEventLoop(): { stop(): number } {
  const period = 10;
  let last = performance.now();
  let maxLag = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxLag = Math.max(maxLag, now - last - period);
    last = now;
  }, period);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(maxLag, performance.now() - last - period);
    },
  };
}

async function holdWriteLock(file: string, holdMs: number) {
  const holder = startChild(LOCK_HOLDER, { FILE: file, HOLD_MS: String(holdMs) }, 'locked');
  await holder.signalled;
  return holder;
}

/** Read, then write: the transaction that a plain (deferred) BEGIN lets fail with SQLITE_BUSY. */
function incrementInTransaction(db: CounterDb): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const { value } = await trx.selectFrom('counter').select('value').where('id', '=', 1).executeTakeFirstOrThrow();
    await trx
      .updateTable('counter')
      .set({ value: value + 1 })
      .where('id', '=', 1)
      .execute();
  });
}

/** One statement outside any transaction (autocommit). */
async function incrementAlone(db: CounterDb): Promise<void> {
  await db.updateTable('counter').set({ value: sql`value + 1` }).where('id', '=', 1).execute();
}

describe('SQLite writers in several processes', () => {
  let root: string;
  let dataDir: string;
  let file: string;
  let db: CounterDb;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-sqlite-writers-'));
    dataDir = path.join(root, 'data');
    file = path.join(dataDir, SQLITE_FILE_NAME);
    const opened = await openDatabase({ dataDir, logger: silent });
    db = opened.db.withTables<CounterTable>();
    await sql`create table counter (id integer primary key, value integer not null)`.execute(db);
    await db.insertInto('counter').values({ id: 1, value: 0 }).execute();
  });
  after(async () => {
    await db.destroy();
    await rm(root, { recursive: true, force: true });
  });

  const counter = async () => (await db.selectFrom('counter').select('value').where('id', '=', 1).executeTakeFirstOrThrow()).value;

  test('two processes running read-then-write transactions on one file lose no update and meet no SQLITE_BUSY', {
    timeout: 120_000,
  }, async () => {
    const transactions = 200;
    const start = await counter();
    const workers = [1, 2].map(() => startChild(COUNTER_WORKER, { DATA_DIR: dataDir, TRANSACTIONS: String(transactions) }, 'ready'));
    await Promise.all(workers.map((w) => w.signalled));
    for (const w of workers) w.child.stdin.end('go\n');
    const results = await Promise.all(workers.map((w) => w.exited));
    for (const { code, stderr } of results) assert.equal(code, 0, `a worker failed:\n${stderr}`);
    assert.equal(await counter(), start + workers.length * transactions, 'every transaction of both processes counted once');
  });

  test('a write waits while another process holds the write lock, then succeeds, and the event loop keeps running meanwhile', {
    timeout: 60_000,
  }, async (t) => {
    const holdMs = 1500;
    const before = await counter();
    const holder = await holdWriteLock(file, holdMs);
    const loop = watchEventLoop();
    const started = performance.now();
    let maxLag: number;
    try {
      // Both kinds of write: a transaction (its begin waits) and a single statement (autocommit).
      await Promise.all([incrementInTransaction(db), incrementAlone(db)]);
    } finally {
      maxLag = loop.stop();
    }
    const waited = performance.now() - started;
    t.diagnostic(`writes waited ${Math.round(waited)} ms; event loop lag meanwhile at most ${Math.round(maxLag)} ms`);
    assert.equal((await holder.exited).code, 0);
    assert.equal(await counter(), before + 2, 'both writes landed');
    assert.ok(waited > holdMs / 2, `the writes waited for the lock (${Math.round(waited)} ms)`);
    assert.ok(maxLag < 200, `event loop lag while waiting: ${Math.round(maxLag)} ms (writes waited ${Math.round(waited)} ms)`);
  });

  test('a write lock held past the budget fails the write with SERVICE_UNAVAILABLE, after waiting the budget, the loop running', {
    timeout: 60_000,
  }, async (t) => {
    const budgetMs = 300;
    const holdMs = 1500;
    const short = (await openSqliteDatabase(file, budgetMs)).withTables<CounterTable>();
    try {
      const before = await counter();
      const holder = await holdWriteLock(file, holdMs);
      const loop = watchEventLoop();
      const started = performance.now();
      let maxLag: number;
      try {
        for (const write of [incrementInTransaction, incrementAlone]) {
          await assert.rejects(write(short), (error) => {
            assert.ok(error instanceof AppError, `an AppError, got ${String(error)}`);
            assert.equal(error.code, 'SERVICE_UNAVAILABLE');
            assert.match(String((error.cause as { code?: unknown }).code), /^SQLITE_BUSY/);
            return true;
          });
        }
      } finally {
        maxLag = loop.stop();
      }
      const waited = performance.now() - started;
      t.diagnostic(`two writes gave up after ${Math.round(waited)} ms; event loop lag meanwhile at most ${Math.round(maxLag)} ms`);
      assert.ok(waited >= 2 * budgetMs - 20 && waited < holdMs, `each write waited the budget, then gave up (${Math.round(waited)} ms)`);
      assert.ok(maxLag < 200, `event loop lag while waiting: ${Math.round(maxLag)} ms`);
      assert.equal((await holder.exited).code, 0);
      assert.equal(await counter(), before, 'neither write landed');
      await incrementAlone(short);
      assert.equal(await counter(), before + 1, 'writes succeed again once the lock is gone');
    } finally {
      await short.destroy();
    }
  });
});
