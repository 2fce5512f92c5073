import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
  SqliteDialect,
} from 'kysely';
import { retryWhileBusy, SQLITE_BUSY_BUDGET_MS } from './sqlite-busy-retry.ts';

export interface WaitingSqliteOptions {
  /** The database as Kysely's SQLite dialect takes it. */
  database: SqliteDatabase;
  /** Whether the connection is inside a transaction now (better-sqlite3's `inTransaction`). */
  inTransaction: () => boolean;
  /** How long one statement or BEGIN waits in all for another connection's lock. */
  busyBudgetMs?: number;
}

/**
 * Kysely's SQLite dialect for a file that other processes write too (the CLI beside the service),
 * changed in two ways so that writers wait for each other instead of failing:
 *
 * - Transactions begin IMMEDIATE, taking the write lock at once. Kysely begins them with a plain
 *   (deferred) BEGIN, and a transaction that reads first and writes later then fails at its first
 *   write with SQLITE_BUSY, at once whatever the busy timeout (measured: in 3 ms), when another
 *   connection holds the write lock or has written since the read: its snapshot would be out of
 *   date, and waiting cannot mend that. Every transaction of the store writes, so none loses by
 *   taking the lock from the start.
 * - A BEGIN, or a statement outside a transaction, that meets another connection's lock is tried
 *   again after a pause on a timer (retryWhileBusy), for up to the budget. better-sqlite3 is
 *   synchronous: SQLite's own busy_timeout would wait inside the call, stopping the event loop.
 *
 * Which statements may be retried is asked of the connection itself (inTransaction), so the
 * `begin immediate` that migrate.ts sends as a plain statement waits in the same way.
 */
export function waitingSqliteDialect(options: WaitingSqliteOptions): Dialect {
  const dialect = new SqliteDialect({ database: options.database });
  const budgetMs = options.busyBudgetMs ?? SQLITE_BUSY_BUDGET_MS;
  return {
    createDriver: () => new WaitingSqliteDriver(dialect.createDriver(), options.inTransaction, budgetMs),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');

class WaitingConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly inTransaction: () => boolean,
    private readonly budgetMs: number,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.inTransaction()) return this.inner.executeQuery<R>(query);
    return retryWhileBusy(() => this.inner.executeQuery<R>(query), this.budgetMs);
  }

  /** Not retried: rows may already have gone to the caller. The store streams no query. */
  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Kysely's SqliteDriver (one connection behind a mutex) with its connection wrapped and its BEGIN
 * replaced. COMMIT and ROLLBACK are its own: in WAL mode a transaction that holds the write lock
 * waits for no one to commit. Savepoints are left out, as in error-translating-dialect.ts.
 */
class WaitingSqliteDriver implements Driver {
  // One wrapper per connection of the inner driver, so that Kysely sees the same object each time.
  private readonly wrappers = new WeakMap<DatabaseConnection, WaitingConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly inTransaction: () => boolean,
    private readonly budgetMs: number,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let wrapper = this.wrappers.get(connection);
    if (wrapper === undefined) {
      wrapper = new WaitingConnection(connection, this.inTransaction, this.budgetMs);
      this.wrappers.set(connection, wrapper);
    }
    return wrapper;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await retryWhileBusy(() => innerOf(connection).executeQuery(BEGIN_IMMEDIATE), this.budgetMs);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(innerOf(connection));
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(innerOf(connection));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(innerOf(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function innerOf(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof WaitingConnection ? connection.inner : connection;
}
