import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { createLogger } from '../../src/logging/logger.ts';
import { openDatabase } from '../../src/metadata/database.ts';
import { durableTransaction } from '../../src/metadata/durable-transaction.ts';
import type { Database } from '../../src/metadata/schema.ts';

const silent = createLogger('silent', new Writable({ write: (_c, _e, done) => done() }));

describe('a durable transaction on SQLite', () => {
  test('runs with synchronous = FULL, on its own connection, and leaves NORMAL behind, after an error too', async (t) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-durable-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const { db, engine } = await openDatabase({ dataDir, logger: silent });
    t.after(() => db.destroy());
    const synchronous = async (on: Kysely<Database>) =>
      Number(Object.values((await sql.raw('pragma synchronous').execute(on)).rows[0] as object)[0]);
    const durably = durableTransaction(db, engine);
    assert.equal(await synchronous(db), 1, 'NORMAL outside');
    const inside = await durably(async (trx) => {
      await sql`create table kept (v text)`.execute(trx);
      await sql`insert into kept values ('committed')`.execute(trx);
      return synchronous(trx);
    });
    assert.equal(inside, 2, 'FULL inside');
    assert.equal(await synchronous(db), 1, 'NORMAL again');
    await assert.rejects(
      durably(async (trx) => {
        await sql`insert into kept values ('rolled back')`.execute(trx);
        throw new Error('refused');
      }),
      /refused/,
    );
    assert.equal(await synchronous(db), 1, 'NORMAL again after a failure');
    assert.deepEqual((await sql<{ v: string }>`select v from kept`.execute(db)).rows, [{ v: 'committed' }]);
  });
});
