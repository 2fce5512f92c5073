import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database, Engine } from './schema.ts';

/** Runs `work` in a transaction whose commit is on disk before it resolves. */
export type DurableTransaction = <T>(work: (trx: Transaction<Database>) => Promise<T>) => Promise<T>;

/**
 * For a transaction after which the caller acts outside the database on what it committed (it
 * removes the bytes its deleted rows named): a power loss must not take the commit back while the
 * act stays done. PostgreSQL's commits are durable as they are (synchronous_commit = on). SQLite
 * runs in WAL mode with synchronous = NORMAL, whose commits reach the disk at the next checkpoint
 * (see database.ts): this one runs with synchronous = FULL, on the connection reserved for it, so
 * that no other statement runs under the switch.
 */
export function durableTransaction(db: Kysely<Database>, engine: Engine): DurableTransaction {
  // Inside a caller's transaction (MetadataStore.atomically) the work joins it: its commit is the caller's.
  if (db.isTransaction) return (work) => work(db as Transaction<Database>);
  if (engine === 'postgres') return (work) => db.transaction().execute(work);
  return (work) =>
    db.connection().execute(async (connection) => {
      await sql`pragma synchronous = FULL`.execute(connection);
      try {
        return await connection.transaction().execute(work);
      } finally {
        await sql`pragma synchronous = NORMAL`.execute(connection);
      }
    });
}
