import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { AppError, type ErrorCode } from '../../src/errors/app-error.ts';
import type { Logger } from '../../src/logging/logger.ts';
import { openPostgresDatabase, SQLITE_FILE_NAME } from '../../src/metadata/database.ts';
import { translateDriverError, violates, WALLET_UNIQUE } from '../../src/metadata/database-errors.ts';
import { translatingDriverErrors } from '../../src/metadata/error-translating-dialect.ts';
import { metadataStore } from '../../src/metadata/metadata-store.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { Database } from '../../src/metadata/schema.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { randomWallet } from './contract/support.ts';

const silent: Logger = { warn() {}, error() {} };

function isAppErrorWith(code: ErrorCode) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, `an AppError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  };
}

/** A local port that nothing listens on: bound once by the system, then released. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const aFile = (channelId: string) => ({
  channelId,
  folder: 'docs',
  filename: 'a.txt',
  size: 1,
  sha256: '0'.repeat(64),
  contentType: 'text/plain',
  updatedAt: 1,
  blobKey: `objects/${channelId}/00/a`,
});

describe('driver errors', () => {
  test('an outage becomes SERVICE_UNAVAILABLE and a full disk INSUFFICIENT_STORAGE, the driver error kept as the cause; anything else passes unchanged', () => {
    for (const code of ['ECONNREFUSED', '57P01', '08006', 'SQLITE_BUSY', 'SQLITE_IOERR']) {
      const driverError = Object.assign(new Error('driver'), { code });
      const translated = translateDriverError(driverError);
      isAppErrorWith('SERVICE_UNAVAILABLE')(translated);
      assert.equal((translated as AppError).cause, driverError);
    }
    isAppErrorWith('SERVICE_UNAVAILABLE')(translateDriverError(new Error('Connection terminated unexpectedly')));
    // better-sqlite3 reports SQLite's extended codes, which begin with the primary one.
    for (const code of ['SQLITE_IOERR_WRITE', 'SQLITE_CANTOPEN_ISDIR', 'SQLITE_READONLY', 'SQLITE_READONLY_DIRECTORY', '25006'])
      isAppErrorWith('SERVICE_UNAVAILABLE')(translateDriverError(Object.assign(new Error('driver'), { code })));
    for (const code of ['SQLITE_FULL', '53100'])
      isAppErrorWith('INSUFFICIENT_STORAGE')(translateDriverError(Object.assign(new Error('full'), { code })));

    const unique = Object.assign(new Error('duplicate key'), { code: '23505', constraint: WALLET_UNIQUE.name });
    assert.equal(translateDriverError(unique), unique, 'a constraint violation is left to the write that knows its meaning');
    assert.ok(violates(unique, WALLET_UNIQUE));
    const syntax = Object.assign(new Error('syntax error'), { code: '42601' });
    assert.equal(translateDriverError(syntax), syntax);
    const appError = new AppError('TENANT_NOT_FOUND', 'gone');
    assert.equal(translateDriverError(appError), appError);
  });

  describe('PostgreSQL on a port where no server listens', () => {
    let url: string;
    let store: MetadataStore;
    before(async () => {
      url = `postgres://postgres@127.0.0.1:${await deadPort()}/none`;
      // Built without openMetadataStore, which would fail at its migration (tested below).
      store = metadataStore(await openPostgresDatabase(url, silent), 'postgres');
    });
    after(() => store.close());

    test('every kind of store call rejects with SERVICE_UNAVAILABLE: reads, writes, transactions, the file catalog', async () => {
      await assert.rejects(store.ping(), isAppErrorWith('SERVICE_UNAVAILABLE'));
      await assert.rejects(store.getTenant('t_x'), isAppErrorWith('SERVICE_UNAVAILABLE'));
      await assert.rejects(
        store.createAdmin({ tenantId: 't_x', wallet: randomWallet(), displayName: 'A' }),
        isAppErrorWith('SERVICE_UNAVAILABLE'),
      );
      await assert.rejects(store.grantPermission('adm_x', 'files:read'), isAppErrorWith('SERVICE_UNAVAILABLE'), 'a transaction');
      await assert.rejects(store.loadPrincipalByWallet(randomWallet()), isAppErrorWith('SERVICE_UNAVAILABLE'));
      await assert.rejects(store.claimNonce('n', 'h', 2), isAppErrorWith('SERVICE_UNAVAILABLE'));
      await assert.rejects(store.files.putFile(aFile('chn_x')), isAppErrorWith('SERVICE_UNAVAILABLE'), 'a transaction of the file catalog');
      await assert.rejects(
        store.files.appendAudit({
          tenantId: 't_x',
          channelId: 'chn_x',
          adminId: null,
          action: 'upload',
          folder: null,
          filename: null,
          backupTimestamp: null,
          versionId: null,
          at: null,
          result: 'failed',
          code: 'SERVICE_UNAVAILABLE',
          sha256: null,
          createdAt: 1,
          operationId: null,
          operation: null,
        }),
        isAppErrorWith('SERVICE_UNAVAILABLE'),
      );
    });

    test('opening the store (and so its migration) rejects with SERVICE_UNAVAILABLE', async () => {
      await assert.rejects(
        openMetadataStore({ dataDir: os.tmpdir(), databaseUrl: url, logger: silent }),
        isAppErrorWith('SERVICE_UNAVAILABLE'),
      );
    });
  });

  describe('SQLite', () => {
    let dataDir: string;
    let file: string;
    before(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-driver-errors-'));
      file = path.join(dataDir, SQLITE_FILE_NAME);
      await (await openMetadataStore({ dataDir })).close(); // creates and migrates the file
    });
    after(() => rm(dataDir, { recursive: true, force: true }));

    /** The store over its own connection, set up by `configure` (a short busy timeout, a size cap). */
    function storeOn(configure: (sqlite: SQLite.Database) => void, options: SQLite.Options = {}): MetadataStore {
      const sqlite = new SQLite(file, options);
      configure(sqlite);
      return metadataStore(new Kysely<Database>({ dialect: translatingDriverErrors(new SqliteDialect({ database: sqlite })) }), 'sqlite');
    }

    test('a write lock held past the busy timeout rejects writes, in and out of transactions, with SERVICE_UNAVAILABLE', async () => {
      const store = storeOn(() => {}, { timeout: 50 });
      const other = new SQLite(file);
      try {
        const tenant = await store.createTenant({ name: 'before the lock' });
        other.exec('begin immediate');
        await assert.rejects(store.createTenant({ name: 'locked out' }), isAppErrorWith('SERVICE_UNAVAILABLE'));
        await assert.rejects(
          store.createAdmin({ tenantId: tenant.id, wallet: randomWallet(), displayName: 'A' }),
          isAppErrorWith('SERVICE_UNAVAILABLE'),
        );
        await assert.rejects(store.files.putFile(aFile('chn_x')), isAppErrorWith('SERVICE_UNAVAILABLE'));
        other.exec('rollback');
        assert.equal(
          (await store.createTenant({ name: 'after the lock' })).name,
          'after the lock',
          'the store works again once the lock is gone',
        );
      } finally {
        other.close();
        await store.close();
      }
    });

    test('a database file the service may not write rejects writes with SERVICE_UNAVAILABLE, reads still answer', async () => {
      // Opened read-only, SQLite refuses writes as it does for a file whose mode or mount forbids them.
      const store = storeOn(() => {}, { readonly: true });
      try {
        await assert.rejects(store.createTenant({ name: 'read-only' }), (error) => {
          isAppErrorWith('SERVICE_UNAVAILABLE')(error);
          assert.match(String((error as AppError).cause), /readonly/, 'the driver error is kept for the log');
          assert.doesNotMatch((error as AppError).message, /metadata\.sqlite|\//, 'the client learns no path');
          return true;
        });
        await assert.rejects(store.files.putFile(aFile('chn_x')), isAppErrorWith('SERVICE_UNAVAILABLE'));
        assert.equal(await store.isEmpty(), false);
      } finally {
        await store.close();
      }
    });

    test('a full database rejects a write with INSUFFICIENT_STORAGE', async () => {
      // max_page_count caps this connection's file at its present size, as a full disk would.
      const store = storeOn((sqlite) => sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true })}`));
      try {
        const filling = async () => {
          for (let i = 0; i < 100_000; i++) await store.createTenant({ name: `filler ${i} ${'x'.repeat(150)}` });
        };
        await assert.rejects(filling(), isAppErrorWith('INSUFFICIENT_STORAGE'));
      } finally {
        await store.close();
      }
    });

    test('a transaction SQLite rolled back itself on a full database rejects with INSUFFICIENT_STORAGE, not the failed ROLLBACK after it', async () => {
      const setup = storeOn(() => {});
      const tenant = await setup.createTenant({ name: 'full' });
      const channel = await setup.createChannel({ tenantId: tenant.id, name: 'full' });
      await setup.close();
      const store = storeOn((sqlite) => sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true })}`));
      try {
        // putFile is a transaction: SQLite rolls it back itself when the file is full, and Kysely's
        // ROLLBACK after that fails ("no transaction is active").
        const inTransaction = async () => {
          for (let i = 0; i < 1000; i++) await store.files.putFile({ ...aFile(channel.id), filename: `${i}-${'x'.repeat(200)}` });
        };
        await assert.rejects(inTransaction(), isAppErrorWith('INSUFFICIENT_STORAGE'));
      } finally {
        await store.close();
      }
    });
  });
});
