import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/metadata/database.ts';
import { migrateToLatest } from '../../src/metadata/migrate.ts';
import { SHIPPED_TABLES, UNSHIPPED_TABLES } from '../../src/metadata/offsite/shipped-tables.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import pg from 'pg';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { ADMIN_DATABASE_URL, createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

/**
 * The capture of changes for the off-site copy (src/metadata/offsite): every table of the schema
 * is either shipped or named as not shipped; with the triggers installed every change of a shipped
 * table is queued by its own transaction, a rolled-back one is not, and without them nothing is.
 */
describe('off-site change capture (SQLite)', () => {
  let dir: string;
  let store: MetadataStore;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-capture-'));
    store = await openMetadataStore({ dataDir: dir });
  });
  after(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('every table of the schema is shipped or deliberately not', async () => {
    const { db } = await openDatabase({ dataDir: dir, logger: { warn() {}, error() {} } });
    try {
      await migrateToLatest(db, 'sqlite');
      const { rows } = await sql<{
        name: string;
      }>`select name from sqlite_master where type = 'table' and name not like 'kysely_%' and name not like 'sqlite_%'`.execute(db);
      const listed = new Set<string>([...SHIPPED_TABLES.map((t) => t.name), ...UNSHIPPED_TABLES]);
      assert.deepEqual(
        rows.map((r) => r.name).filter((name) => !listed.has(name)),
        [],
        'a table neither shipped nor listed as not shipped',
      );
    } finally {
      await db.destroy();
    }
  });

  test('installed, each change is queued in its own transaction; a rolled-back one is not; removed, none is', async () => {
    assert.equal(await store.offsite.captureInstalled(), false);
    assert.deepEqual(await store.offsite.installCapture(), { wasInstalled: false });
    assert.deepEqual(await store.offsite.installCapture(), { wasInstalled: true });
    const fixture = await createTenantFixture(store, 'Capture');
    const queued = async () => (await store.offsite.backlog()).changes;
    const afterFixture = await queued();
    // A tenant, an owner, a channel and its link: at least one change each.
    assert.ok(afterFixture >= 4, `queued ${afterFixture}`);
    await assert.rejects(
      store.atomically(async (tx) => {
        await tx.renameChannel(fixture.channel.id, 'renamed');
        throw new Error('roll back');
      }),
    );
    assert.equal(await queued(), afterFixture, 'a rolled-back change is not queued');
    await store.renameChannel(fixture.channel.id, 'renamed');
    assert.equal(await queued(), afterFixture + 1);
    const changes = await store.offsite.nextChanges(1, 1000, Date.now());
    const rename = changes.at(-1)!;
    assert.deepEqual(
      [rename.table, rename.op, rename.oldKey, rename.row?.name],
      ['channels', 'update', { id: fixture.channel.id }, 'renamed'],
    );
    assert.equal(await store.offsite.removeCapture(), true);
    await store.renameChannel(fixture.channel.id, 'again');
    assert.equal(await queued(), afterFixture + 1, 'without the triggers nothing is captured');
  });
});

describe('off-site change capture (PostgreSQL): what holds a change back', () => {
  let database: TestDatabase;
  let store: MetadataStore;
  before(async () => {
    database = await createTestDatabase();
    store = await openMetadataStore({ dataDir: os.tmpdir(), databaseUrl: database.url });
    await store.offsite.installCapture();
  });
  after(async () => {
    await store.close();
    await database.drop();
  });

  /** A session with an open transaction that holds a transaction id, until `end`. */
  async function openTransaction(url: string): Promise<{ end(): Promise<void> }> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('begin');
    await client.query('select txid_current()');
    return {
      async end() {
        await client.query('rollback');
        await client.end();
      },
    };
  }

  test("a transaction left open in another database of the server holds nothing back; one in this database does, until it ends", async () => {
    const fixture = await createTenantFixture(store, 'Horizon');
    let segment = 1;
    const shippable = async () => (await store.offsite.nextChanges(segment++, 1000, Date.now())).length;
    assert.ok((await shippable()) >= 4, 'the fixture is shippable');

    const elsewhere = await openTransaction(ADMIN_DATABASE_URL);
    try {
      await store.renameChannel(fixture.channel.id, 'while another database has a transaction open');
      assert.equal(await shippable(), 1, 'another database cannot commit into this one: its transaction holds nothing back');
    } finally {
      await elsewhere.end();
    }

    const here = await openTransaction(database.url);
    try {
      await store.renameChannel(fixture.channel.id, 'while this database has a transaction open');
      // It began before the rename and may still write a change that sorts before it.
      assert.equal(await shippable(), 0, 'held back while an older transaction of this database is open');
      segment--;
    } finally {
      await here.end();
    }
    assert.equal(await shippable(), 1, 'shippable once that transaction has ended');
  });
});
