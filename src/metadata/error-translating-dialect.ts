import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { isAppError } from '../errors/app-error.ts';
import { commitRefused } from '../errors/common-errors.ts';
import { isRollbackWithoutTransaction, translateDriverError } from './database-errors.ts';

/**
 * The store's one error boundary: the dialect as given, but with a driver that passes every error
 * of its driver through translateDriverError. Plain queries, transactions, migrations and the file
 * catalog all run through it, so nothing above the store meets the raw driver error of an outage.
 */
export function translatingDriverErrors(dialect: Dialect): Dialect {
  return {
    createDriver: () => new TranslatingDriver(dialect.createDriver()),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}

async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw translateDriverError(error);
  }
}

class TranslatingConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return translated(() => this.inner.executeQuery<R>(query));
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize);
    } catch (error) {
      throw translateDriverError(error);
    }
  }
}

/**
 * Savepoints are left out: the store uses none, and without them Kysely refuses one plainly
 * instead of running it untranslated.
 */
class TranslatingDriver implements Driver {
  // One wrapper per connection of the inner driver, so that Kysely sees the same object each time.
  private readonly wrappers = new WeakMap<DatabaseConnection, TranslatingConnection>();

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return translated(() => this.inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await translated(() => this.inner.acquireConnection());
    let wrapper = this.wrappers.get(connection);
    if (wrapper === undefined) {
      wrapper = new TranslatingConnection(connection);
      this.wrappers.set(connection, wrapper);
    }
    return wrapper;
  }

  // The inner driver is handed back its own connection: it may keep private state on it.
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return translated(() => this.inner.beginTransaction(innerOf(connection), settings));
  }

  /**
   * A COMMIT the database answers with an error it rolled back (a deferred constraint, a
   * serialization failure) changed nothing: said so, as an outage is not (its commit may have gone through).
   */
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await translated(() => this.inner.commitTransaction(innerOf(connection)));
    } catch (error) {
      throw isAppError(error) ? error : commitRefused(error);
    }
  }

  /** Kysely rolls back after a failed statement and then throws the statement's error, unless the rollback throws first. */
  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return translated(async () => {
      try {
        await this.inner.rollbackTransaction(innerOf(connection));
      } catch (error) {
        if (!isRollbackWithoutTransaction(error)) throw error;
      }
    });
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(innerOf(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

function innerOf(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof TranslatingConnection ? connection.inner : connection;
}
