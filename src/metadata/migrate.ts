import { type Kysely, type MigrationResultSet, Migrator, sql } from 'kysely';
import { isAppError } from '../errors/app-error.ts';
import { migrationNames, migrationProvider } from './migrations/index.ts';
import type { Database, Engine } from './schema.ts';

/**
 * Brings the schema to the latest migration; a no-op when it is already there.
 * Returns the names of the migrations this call applied.
 *
 * Instances that start together must not both migrate. On PostgreSQL Kysely's Migrator holds a
 * session advisory lock and runs the pending migrations in one transaction. On SQLite the Migrator
 * takes no lock at all (it assumes one process), so we hold the database's write lock ourselves
 * for the whole run: the CLI and the server may open a fresh file at the same moment.
 */
export async function migrateToLatest(db: Kysely<Database>, engine: Engine): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider });
  if (engine === 'postgres') return applied(await migrator.migrateToLatest());

  // `begin immediate` waits (on SQLite, the dialect retries it, see waiting-sqlite-dialect.ts) for
  // another process's migration to finish and then sees its result. Nothing else uses this
  // connection while the store is still opening.
  await sql`begin immediate`.execute(db);
  let result: MigrationResultSet;
  try {
    result = await migrator.migrateToLatest();
  } catch (error) {
    await sql`rollback`.execute(db);
    throw error;
  }
  await sql.raw(result.error === undefined ? 'commit' : 'rollback').execute(db);
  return applied(result);
}

function applied(result: MigrationResultSet): string[] {
  if (result.error !== undefined) {
    // An outage or a full disk (translated at the driver) is reported as itself, like any query's.
    if (isAppError(result.error)) throw result.error;
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    const what = failed ? `Database migration ${failed} failed` : 'Could not prepare the database for migrations';
    throw new Error(`${what}: ${reason}`, { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Brings a fresh database to one migration exactly (a rebuild loads a copy's rows under the schema
 * they were written in, then migrates on). Refuses a name this release does not know: a copy
 * written by a newer release.
 */
export async function migrateExactlyTo(db: Kysely<Database>, name: string): Promise<void> {
  if (!migrationNames.includes(name)) {
    throw new Error(
      `the copy's schema is ${name}, which this release does not know (it knows up to ${migrationNames[migrationNames.length - 1]}): rebuild with a release at least as new as the one that shipped it`,
    );
  }
  applied(await new Migrator({ db, provider: migrationProvider }).migrateTo(name));
}
