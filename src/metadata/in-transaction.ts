import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Runs `work` in a transaction: the caller's, when `db` is one (the store bound to a transaction by
 * MetadataStore.atomically), else a new one. Kysely opens no transaction inside another, and a
 * change meant to commit with its audit entry must not commit on its own.
 */
export function inTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}
