import type { Kysely } from 'kysely';

/**
 * demo_seeding: where the demo data of a first start on loopback stands (src/demo/demo-seed.ts).
 * Its one row is made before the first demo record, only while no tenant exists, and completed
 * after the last step: a first start stopped between the two (Ctrl-C, a crash) leaves the row
 * begun, and the next start completes the demo instead of finding a tenant and seeding nothing.
 * Databases from before this migration have no row: their demo, if any, is as it is.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('demo_seeding')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('begun_at', 'bigint', (col) => col.notNull())
    .addColumn('completed_at', 'bigint')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('demo_seeding').execute();
}
