import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { PostgresLocks } from '../../src/locks/postgres-locks.ts';
import { createTestDatabase } from '../helpers/postgres.ts';

const quiet = { warn: () => {}, error: () => {} };

describe('PostgresLocks: per-file locks for several instances on one database', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let first: PostgresLocks;
  let second: PostgresLocks;

  before(async () => {
    database = await createTestDatabase();
    first = new PostgresLocks(database.url, quiet);
    second = new PostgresLocks(database.url, quiet);
  });
  after(async () => {
    await first.close();
    await second.close();
    await database.drop();
  });

  test('an instance waits while another holds the same key; other keys do not wait', async () => {
    const log: string[] = [];
    let release!: () => void;
    const held = first.runExclusive('files/c/f', async () => {
      log.push('first:start');
      await new Promise<void>((resolve) => (release = resolve));
      log.push('first:end');
    });
    while (!log.includes('first:start')) await sleep(5);
    await second.runExclusive('files/c/other', async () => void log.push('second:other'));
    const waiting = second.runExclusive('files/c/f', async () => void log.push('second:same'));
    await sleep(200); // every chance for a broken lock to let the second in early
    release();
    await Promise.all([held, waiting]);
    assert.deepEqual(log, ['first:start', 'second:other', 'first:end', 'second:same']);
  });

  test('a holder whose connection dies loses the lock, so the others are not stuck', async () => {
    let release!: () => void;
    let started = false;
    const held = first.runExclusive('files/c/crash', async () => {
      started = true;
      await new Promise<void>((resolve) => (release = resolve));
    });
    while (!started) await sleep(5);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'wallet-admin-locks' and query like '%pg_advisory_lock%' and datname = current_database()`,
    );
    await admin.end();
    assert.equal(await second.runExclusive('files/c/crash', async () => 'got it'), 'got it');
    release();
    await held.catch(() => undefined);
  });

  test('many keys at once, more than the lock connections, all complete', async () => {
    const done = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        (i % 2 ? first : second).runExclusive(`k${i % 30}`, async () => {
          await sleep(2);
          return i;
        }),
      ),
    );
    assert.equal(done.length, 60);
  });
});
