import type { Kysely } from 'kysely';

/**
 * Sessions an admin controls, at a cost that does not grow on the request path:
 *
 * - admins.signed_out_before: messages the admin signed before this instant (epoch ms) no longer
 *   authenticate: "log out everywhere", a wallet rotation and a suspension set it. One field of
 *   the admin's row, which every request reads anyway, instead of a list of messages.
 * - revoked_messages.revoked_at: when a message was logged out, so that each instance loads only
 *   the revocations made since it last looked (0 for those made before this migration, which
 *   every instance loads at its first look).
 * - service_secrets: keys every instance on this database shares, made by the first that needs
 *   one (the key of the stateless sign-in nonces).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('admins').addColumn('signed_out_before', 'bigint').execute();
  await db.schema
    .alterTable('revoked_messages')
    .addColumn('revoked_at', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('revoked_messages_revoked_idx').on('revoked_messages').column('revoked_at').execute();
  await db.schema
    .createTable('service_secrets')
    .addColumn('name', 'text', (col) => col.primaryKey())
    .addColumn('value', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('service_secrets').execute();
  await db.schema.dropIndex('revoked_messages_revoked_idx').execute();
  await db.schema.alterTable('revoked_messages').dropColumn('revoked_at').execute();
  await db.schema.alterTable('admins').dropColumn('signed_out_before').execute();
}
