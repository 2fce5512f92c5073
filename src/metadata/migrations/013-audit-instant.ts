import type { Kysely } from 'kysely';

/**
 * audit_events.restore_at: the instant a restore was asked to bring back (RFC 3339, as asked), so
 * that the log says "the state at 14:05" where it could only name the version that instant
 * resolved to (ver_…). A folder or channel restore's own event had it in operation_details
 * already; a single file's restore, and each file of a scope restore, had nothing. Events written
 * before keep null.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_events').addColumn('restore_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_events').dropColumn('restore_at').execute();
}
