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
import { createTenantFixture } from '../helpers/fixtures.ts';

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
