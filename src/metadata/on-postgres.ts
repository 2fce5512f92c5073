import { type Kysely, PostgresAdapter } from 'kysely';
import type { Database } from './schema.ts';

/**
 * Whether `db` (a store's database or one of its transactions) runs on PostgreSQL: where a write
 * folds several statements into one with data-modifying CTEs, which SQLite has not (and, running
 * in the service's process, needs less: its statements cost no round trip).
 */
export const onPostgres = (db: Kysely<Database>): boolean => db.getExecutor().adapter instanceof PostgresAdapter;
