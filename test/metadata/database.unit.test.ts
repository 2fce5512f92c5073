import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import type { Logger } from '../../src/logging/logger.ts';
import { openDatabase } from '../../src/metadata/database.ts';
import { migrateToLatest } from '../../src/metadata/migrate.ts';
import { migrationNames } from '../../src/metadata/migrations/index.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { ENGINES } from '../helpers/backends.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.ts';
import { randomWallet } from './contract/support.ts';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const silent: Logger = { warn() {}, error() {} };

describe('SQLite database', () => {
  let root: string;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-db-'));
  });
  after(() => rm(root, { recursive: true, force: true }));

  test('opens <dataDir>/metadata.sqlite, creating the directory, with the pragmas concurrent processes need', async () => {
    const dataDir = path.join(root, 'nested', 'data');
    const store = await openMetadataStore({ dataDir });
    await store.close();
    assert.ok(existsSync(path.join(dataDir, 'metadata.sqlite')));

    const { db } = await openDatabase({ dataDir, logger: silent });
    try {
      const pragma = async (name: string) => Object.values((await sql.raw(`pragma ${name}`).execute(db)).rows[0] as object)[0];
      assert.equal(await pragma('journal_mode'), 'wal');
      // Waiting for another process's lock happens on timers (waiting-sqlite-dialect.ts): SQLite's
      // own wait would stop the event loop.
      assert.equal(await pragma('busy_timeout'), 0);
      assert.equal(await pragma('foreign_keys'), 1);
      assert.equal(await pragma('synchronous'), 1, 'NORMAL: FULL only for the commits that ask for it (durable-transaction.ts)');
    } finally {
      await db.destroy();
    }
  });

  test('migrations apply once; opening again applies none', async () => {
    const dataDir = path.join(root, 'migrate-once');
    const first = await openDatabase({ dataDir, logger: silent });
    assert.deepEqual(await migrateToLatest(first.db, 'sqlite'), migrationNames);
    assert.deepEqual(await migrateToLatest(first.db, 'sqlite'), []);
    await first.db.destroy();
    const again = await openDatabase({ dataDir, logger: silent });
    assert.deepEqual(await migrateToLatest(again.db, 'sqlite'), []);
    await again.db.destroy();
  });

  test('processes opening and writing one fresh file at once all succeed, and exactly one migrates', async () => {
    const dataDir = path.join(root, 'racing-processes');
    const go = path.join(root, 'racing-processes-go');
    // Each child opens the same fresh file, migrates, then writes, as the CLI and the server do:
    // transactions from other processes must wait for each other, never fail with SQLITE_BUSY.
    // They load first and then start together on a signal, or start-up jitter would keep them apart.
    const child = `
      import { existsSync } from 'node:fs';
      import { openDatabase } from './src/metadata/database.ts';
      import { migrateToLatest } from './src/metadata/migrate.ts';
      import { openMetadataStore } from './src/metadata/open-metadata-store.ts';
      console.log('ready');
      while (!existsSync(${JSON.stringify(go)})) await new Promise((resolve) => setTimeout(resolve, 1));
      const { db } = await openDatabase({ dataDir: ${JSON.stringify(dataDir)}, logger: console });
      const applied = await migrateToLatest(db, 'sqlite');
      await db.destroy();
      const store = await openMetadataStore({ dataDir: ${JSON.stringify(dataDir)} });
      for (let i = 0; i < 20; i++) {
        const tenant = await store.createTenant({ name: 'from ' + process.pid });
        const wallet = '0x' + Array.from({ length: 40 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
        const admin = await store.createAdmin({ tenantId: tenant.id, wallet, displayName: 'A', permissions: ['files:read'] });
        await store.grantPermission(admin.id, 'files:write');
      }
      await store.close();
      console.log(JSON.stringify(applied));
    `;
    const children = Array.from({ length: 3 }, () => runChild(child));
    await Promise.all(children.map((c) => c.ready));
    await writeFile(go, '');
    const applied = (await Promise.all(children.map((c) => c.done))).map((out) => JSON.parse(out.trim().split('\n').at(-1)!) as string[]);
    assert.deepEqual(applied.flat(), migrationNames, `applied per process: ${JSON.stringify(applied)}`);
    const { db } = await openDatabase({ dataDir, logger: silent });
    const { count } = await db.selectFrom('tenants').select(sql<number>`count(*)`.as('count')).executeTakeFirstOrThrow();
    assert.equal(count, children.length * 20, 'every write of every process landed');
    await db.destroy();
  });
});

// Where the tier has PostgreSQL (ENGINES); the SQLite database above is tested in every tier.
if (ENGINES.includes('postgres'))
  describe('PostgreSQL database', () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase();
    });
    after(() => database.drop());

    test('instances migrating one fresh database together migrate it once (advisory lock)', async () => {
      const instances = await Promise.all(
        Array.from({ length: 3 }, () => openDatabase({ dataDir: os.tmpdir(), databaseUrl: database.url, logger: silent })),
      );
      try {
        const applied = await Promise.all(instances.map(({ db }) => migrateToLatest(db, 'postgres')));
        assert.deepEqual(applied.flat(), migrationNames, `applied per instance: ${JSON.stringify(applied)}`);
        const rows = await instances[0]!.db
          .selectFrom('kysely_migration' as never)
          .select(sql<number>`count(*)`.as('count'))
          .executeTakeFirstOrThrow();
        assert.equal(rows.count, migrationNames.length, 'int8 count arrives as a number');
        assert.deepEqual(await migrateToLatest(instances[1]!.db, 'postgres'), []);
      } finally {
        await Promise.all(instances.map(({ db }) => db.destroy()));
      }
    });

    test('two openMetadataStore on one fresh database both succeed', async () => {
      const fresh = await createTestDatabase();
      try {
        const stores = await Promise.all(
          [1, 2].map(() => openMetadataStore({ dataDir: os.tmpdir(), databaseUrl: fresh.url, logger: silent })),
        );
        const t = await stores[0]!.createTenant({ name: 'seen by both' });
        assert.deepEqual(await stores[1]!.getTenant(t.id), t);
        await Promise.all(stores.map((s) => s.close()));
      } finally {
        await fresh.drop();
      }
    });

    test('bigint times come back as numbers for the store only, not for other pg users', async () => {
      const store = await openMetadataStore({ dataDir: os.tmpdir(), databaseUrl: database.url, logger: silent });
      const t = await store.createTenant({ name: 'typed' });
      assert.equal(typeof (await store.getTenant(t.id))?.createdAt, 'number');
      await store.close();
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ created_at: unknown }>('select created_at from tenants where id = $1', [t.id]);
        assert.equal(rows[0]?.created_at, String(t.createdAt));
      } finally {
        await client.end();
      }
    });

    test('a bad URL fails to open with the connection error', async () => {
      const url = new URL(database.url);
      url.pathname = '/wa_test_does_not_exist';
      await assert.rejects(openMetadataStore({ dataDir: os.tmpdir(), databaseUrl: url.href, logger: silent }), /does not exist/);
    });
  });

for (const engine of ENGINES) {
  test(`the ${engine} schema itself refuses links and owners across tenants, and uppercase wallets`, async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-schema-'));
    const database = engine === 'postgres' ? await createTestDatabase() : undefined;
    const options = { dataDir, databaseUrl: database?.url, logger: silent };
    try {
      const store = await openMetadataStore(options);
      const [t1, t2] = [await store.createTenant({ name: 'one' }), await store.createTenant({ name: 'two' })];
      const a = await store.createAdmin({ tenantId: t1.id, wallet: randomWallet(), displayName: 'A' });
      const foreign = await store.createChannel({ tenantId: t2.id, name: 'c' });
      await store.close();
      const { db } = await openDatabase(options);
      try {
        await assert.rejects(
          db.insertInto('channel_admins').values({ channel_id: foreign.id, admin_id: a.id, tenant_id: t1.id }).execute(),
          /foreign key/i,
        );
        const ownedAcrossTenants = {
          id: 'adm_cross',
          tenant_id: t2.id,
          wallet: randomWallet().toLowerCase(),
          display_name: 'B',
          owner_admin_id: a.id,
          status: 'ACTIVE' as const,
          created_at: 0,
          updated_at: 0,
        };
        await assert.rejects(db.insertInto('admins').values(ownedAcrossTenants).execute(), /foreign key/i);
        await assert.rejects(db.updateTable('admins').set({ wallet: a.wallet.toUpperCase() }).where('id', '=', a.id).execute(), /check/i);
      } finally {
        await db.destroy();
      }
    } finally {
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
}

/** A Node child running `code` (TypeScript through tsx) from the repository root. */
function runChild(code: string): { ready: Promise<void>; done: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: repoRoot });
  let stdout = '';
  let stderr = '';
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    if (stdout.includes('ready')) markReady();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const done = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      markReady(); // a child that died before signalling must not leave the parent waiting
      if (code === 0) resolve(stdout);
      else reject(new Error(`child exited with ${code}: ${stderr}`));
    });
  });
  return { ready, done };
}
