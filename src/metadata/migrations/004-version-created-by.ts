import type { Kysely } from 'kysely';

/**
 * Who made a kept version: the admin whose delete kept it, so that the deleted-files listing can
 * say who deleted a file. Null for versions written before (and for the scheduler or the CLI).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('file_versions').addColumn('created_by', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('file_versions').dropColumn('created_by').execute();
}
