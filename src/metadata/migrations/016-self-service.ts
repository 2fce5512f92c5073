import { type Kysely, sql } from 'kysely';

/**
 * Tenant self-service (docs/administration.md):
 *
 * - admin_wallets: every wallet of every admin, one row each; the wallet is the primary key, so a
 *   wallet belongs to at most one admin in the whole service (a sign-in message names no tenant).
 *   Sign-in looks an admin up here. admins.wallet stays, now the admin's first wallet still held,
 *   and keeps its unique constraint (a table rebuild on SQLite would be the only way to drop it).
 *   Backfilled with each admin's wallet.
 * - admins.removed_at: a removed admin's record is kept for the audit log, with no wallet left (its
 *   admins.wallet then holds a placeholder no address can equal, so the wallet may be given again).
 *   Its stored status is SUSPENDED (the status check constraint predates removal); the API shows REMOVED.
 * - admins.revision: raised by every change of the admin, its permissions, wallets or channels: the
 *   record's ETag, so an If-Match update changes nothing when someone changed it in between.
 * - channels.archived_at: an archived channel is read-only.
 * - invitations: the token is stored only as its SHA-256; accepted_at is set once, by the one
 *   acceptance that wins (an UPDATE … WHERE accepted_at IS NULL).
 * - wallet_challenges: the exact message the service asked a new wallet to sign, by its SHA-256,
 *   single use, short-lived.
 * - audit_events.target_admin_id and change_details: the administration events of a tenant name
 *   the admin acted upon and carry the record before and after (JSON). Such an event belongs to no
 *   channel: its channel_id is '' (the column is NOT NULL on SQLite, where only a rebuild could
 *   change that); the catalog reads '' as null.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('admin_wallets')
    .addColumn('wallet', 'text', (col) => col.primaryKey())
    .addColumn('admin_id', 'text', (col) => col.notNull().references('admins.id'))
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addColumn('added_at', 'bigint', (col) => col.notNull())
    .addCheckConstraint('admin_wallets_lowercase', sql`wallet = lower(wallet)`)
    .execute();
  await db.schema.createIndex('admin_wallets_admin_idx').on('admin_wallets').column('admin_id').execute();
  await sql`insert into admin_wallets (wallet, admin_id, tenant_id, added_at) select wallet, id, tenant_id, created_at from admins`.execute(
    db,
  );

  await db.schema.alterTable('admins').addColumn('removed_at', 'bigint').execute();
  await db.schema
    .alterTable('admins')
    .addColumn('revision', 'bigint', (col) => col.notNull().defaultTo(1))
    .execute();
  await db.schema.alterTable('channels').addColumn('archived_at', 'bigint').execute();

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull().references('tenants.id'))
    .addColumn('inviter_admin_id', 'text', (col) => col.notNull().references('admins.id'))
    .addColumn('token_hash', 'text', (col) => col.notNull().unique())
    .addColumn('display_name', 'text')
    .addColumn('wallet', 'text')
    .addColumn('permissions', 'text', (col) => col.notNull())
    .addColumn('channel_ids', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('accepted_at', 'bigint')
    .addColumn('accepted_admin_id', 'text')
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('invitations_tenant_idx').on('invitations').columns(['tenant_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('wallet_challenges')
    .addColumn('message_hash', 'text', (col) => col.primaryKey())
    .addColumn('admin_id', 'text', (col) => col.notNull())
    .addColumn('wallet', 'text', (col) => col.notNull())
    .addColumn('chain_id', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('wallet_challenges_expires_idx').on('wallet_challenges').column('expires_at').execute();

  await db.schema.alterTable('audit_events').addColumn('target_admin_id', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('change_details', 'text').execute();
  // The tenant's log, newest first, and its filter on the admin acted upon.
  await db.schema.createIndex('audit_events_tenant_idx').on('audit_events').columns(['tenant_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('audit_events_target_idx')
    .on('audit_events')
    .columns(['tenant_id', 'target_admin_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('audit_events_target_idx').execute();
  await db.schema.dropIndex('audit_events_tenant_idx').execute();
  await db.schema.alterTable('audit_events').dropColumn('change_details').execute();
  await db.schema.alterTable('audit_events').dropColumn('target_admin_id').execute();
  await db.schema.dropTable('wallet_challenges').execute();
  await db.schema.dropTable('invitations').execute();
  await db.schema.alterTable('channels').dropColumn('archived_at').execute();
  await db.schema.alterTable('admins').dropColumn('revision').execute();
  await db.schema.alterTable('admins').dropColumn('removed_at').execute();
  await db.schema.dropTable('admin_wallets').execute();
}
