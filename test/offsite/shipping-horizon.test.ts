import assert from 'node:assert/strict';
import os from 'node:os';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { ADMIN_DATABASE_URL, createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';

/**
 * On PostgreSQL a captured change is shipped once no transaction that may still commit before it
 * is open (src/metadata/offsite/offsite-records.ts): only this database's transactions count.
 */
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

  test('a transaction left open in another database of the server holds nothing back; one in this database does, until it ends', async () => {
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
