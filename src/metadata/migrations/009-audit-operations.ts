import { type Kysely, sql } from 'kysely';

/**
 * A folder or channel restore is one operation in the audit log: its own event, its safety
 * backup's and each file's carry its id (operation_id), so that the log can be listed for one
 * operation; its own event also records what it was asked and what it did (operation_details,
 * JSON: scope, instant, delete, dry run, safety backup, counts). Existing events keep null in both.
 * The index keeps the listing's order within one operation, as migration 003's do for the other
 * filters; partial, so that the events of single-file writes (most of them) cost no entry in it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_events').addColumn('operation_id', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('operation_details', 'text').execute();
  await db.schema
    .createIndex('audit_events_operation_idx')
    .on('audit_events')
    .columns(['channel_id', 'operation_id', 'created_at', 'id'])
    .where(sql<boolean>`operation_id is not null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_events_operation_idx').execute();
  await db.schema.alterTable('audit_events').dropColumn('operation_details').execute();
  await db.schema.alterTable('audit_events').dropColumn('operation_id').execute();
}
