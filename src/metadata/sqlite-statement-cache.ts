import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/** Distinct statements kept: the service's queries are a few dozen shapes; `in (…)` lists of varying length add more. */
const CACHED_STATEMENTS = 500;

/**
 * The database as Kysely's SQLite dialect sees it, with each SQL text prepared once: the dialect
 * prepares every query anew, which took 18% of a small restore's CPU. A prepared statement is
 * reused only after its previous run has returned (better-sqlite3 runs synchronously and the
 * service never streams a query), so sharing one is safe. Least recently used beyond the bound go.
 */
export function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = sqlite.prepare(sql);
        if (statements.size >= CACHED_STATEMENTS) statements.delete(statements.keys().next().value!);
      } else {
        statements.delete(sql);
      }
      statements.set(sql, statement);
      return statement;
    },
    close() {
      statements.clear();
      sqlite.close();
    },
  };
}
