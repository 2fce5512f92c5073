import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Logger } from '../logging/logger.ts';
import { isSqliteBusy, translateDriverError } from './database-errors.ts';
import { translatingDriverErrors } from './error-translating-dialect.ts';
import type { Database, Engine } from './schema.ts';
import { SQLITE_BUSY_BUDGET_MS } from './sqlite-busy-retry.ts';
import { withStatementCache } from './sqlite-statement-cache.ts';
import { waitingSqliteDialect } from './waiting-sqlite-dialect.ts';

export interface OpenedDatabase {
  db: Kysely<Database>;
  engine: Engine;
}

export const SQLITE_FILE_NAME = 'metadata.sqlite';
const INT8_OID = 20;

export async function openDatabase(options: { databaseUrl?: string; dataDir: string; logger: Logger }): Promise<OpenedDatabase> {
  if (options.databaseUrl) return { db: await openPostgresDatabase(options.databaseUrl, options.logger), engine: 'postgres' };
  await mkdir(options.dataDir, { recursive: true });
  return { db: await openSqliteDatabase(path.join(options.dataDir, SQLITE_FILE_NAME)), engine: 'sqlite' };
}

/**
 * The CLI and the server open this file from different processes at once: WAL lets readers run
 * beside the one writer, and the dialect (waiting-sqlite-dialect.ts) makes a writer wait for the
 * other's lock, for up to `busyBudgetMs`, instead of failing at once. SQLite's own busy timeout
 * is 0: it would wait inside better-sqlite3's synchronous calls, stopping the event loop.
 */
export async function openSqliteDatabase(file: string, busyBudgetMs = SQLITE_BUSY_BUDGET_MS): Promise<Kysely<Database>> {
  let sqlite: SQLite.Database;
  try {
    sqlite = new SQLite(file, { timeout: 0 });
  } catch (error) {
    throw translateDriverError(error);
  }
  try {
    await switchToWal(sqlite, busyBudgetMs);
    // NORMAL: in WAL mode a commit is atomic and survives a crash of the process, and reaches the
    // disk at the next checkpoint, so a power loss may take back the last ones, whole (docs/operations.md,
    // "Power loss"). FULL would fsync every commit under the write lock: measured here, it halved
    // the uploads a second. The commits whose effects outside the database must not outlive them
    // (retention's, before it removes bytes) ask for FULL themselves (durable-transaction.ts).
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
  } catch (error) {
    sqlite.close();
    throw translateDriverError(error);
  }
  const dialect = waitingSqliteDialect({ database: withStatementCache(sqlite), inTransaction: () => sqlite.inTransaction, busyBudgetMs });
  return new Kysely<Database>({ dialect: translatingDriverErrors(dialect) });
}

/**
 * Switching a fresh file to WAL needs it to itself, and there SQLite answers SQLITE_BUSY at once
 * even with a busy timeout (measured: processes opening one fresh file together failed in 2 of 8
 * runs when it was 5 s), so the wait happens here, on a timer like every other wait for a lock.
 */
async function switchToWal(sqlite: SQLite.Database, budgetMs: number): Promise<void> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    let mode: unknown;
    try {
      mode = sqlite.pragma('journal_mode = WAL', { simple: true });
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
    }
    if (mode === 'wal') return;
    if (Date.now() > deadline)
      throw new Error(`Could not switch ${sqlite.name} to WAL mode within ${budgetMs} ms (journal mode: ${String(mode)})`);
    await sleep(10);
  }
}

export async function openPostgresDatabase(url: string, logger: Logger): Promise<Kysely<Database>> {
  // Loaded here, not at the top: the SQLite engine (and the CLI's help) need no PostgreSQL driver.
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    // A server that stops answering must fail requests, not queue them for ever.
    connectionTimeoutMillis: 5000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'wallet-admin',
    // Times are bigint columns; epoch milliseconds fit a JS number exactly. Set per pool so that
    // other pg users in the process keep the default (string) parser.
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary' ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // Without a listener, an idle client dropped by a PostgreSQL restart throws from an
  // EventEmitter and kills the process. The pool discards the client and reconnects on demand.
  pool.on('error', (err) => logger.error({ err }, 'PostgreSQL connection lost; the pool will reconnect'));
  // A client checked out at that moment has no pool listener; its pending or next query rejects
  // with the cause, which is where the failure gets reported, so the event itself is dropped here.
  pool.on('connect', (client) => client.on('error', () => {}));
  return new Kysely<Database>({ dialect: translatingDriverErrors(new PostgresDialect({ pool })) });
}
