import { type Kysely, sql } from 'kysely';

// Migrations take Kysely<any> on purpose: they describe the schema of their own moment,
// not the row types of today's code. Types chosen here read the same way on both engines
// ('bigint' has integer affinity in SQLite).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('tenant_features')
    .addColumn('tenant_id', 'text', (col) => col.notNull().references('tenants.id'))
    .addColumn('feature', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('tenant_features_pk', ['tenant_id', 'feature'])
    .execute();

  await db.schema
    .createTable('admins')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull().references('tenants.id'))
    .addColumn('wallet', 'text', (col) => col.notNull())
    .addColumn('display_name', 'text', (col) => col.notNull())
    .addColumn('owner_admin_id', 'text')
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('admins_wallet_unique', ['wallet'])
    // Target of the composite foreign keys that keep owners and channel links inside one tenant.
    .addUniqueConstraint('admins_tenant_id_unique', ['tenant_id', 'id'])
    .addForeignKeyConstraint('admins_owner_same_tenant_fk', ['tenant_id', 'owner_admin_id'], 'admins', ['tenant_id', 'id'])
    .addCheckConstraint('admins_wallet_lowercase', sql`wallet = lower(wallet)`)
    .addCheckConstraint('admins_status_known', sql`status in ('ACTIVE', 'SUSPENDED')`)
    .execute();

  await db.schema
    .createTable('admin_permissions')
    .addColumn('admin_id', 'text', (col) => col.notNull().references('admins.id'))
    .addColumn('permission', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('admin_permissions_pk', ['admin_id', 'permission'])
    .execute();

  await db.schema
    .createTable('admin_features')
    .addColumn('admin_id', 'text', (col) => col.notNull().references('admins.id'))
    .addColumn('feature', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('admin_features_pk', ['admin_id', 'feature'])
    .execute();

  await db.schema
    .createTable('channels')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull().references('tenants.id'))
    .addColumn('name', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addUniqueConstraint('channels_tenant_name_unique', ['tenant_id', 'name'])
    .addUniqueConstraint('channels_tenant_id_unique', ['tenant_id', 'id'])
    .execute();

  await db.schema
    .createTable('channel_admins')
    .addColumn('channel_id', 'text', (col) => col.notNull())
    .addColumn('admin_id', 'text', (col) => col.notNull())
    .addColumn('tenant_id', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('channel_admins_pk', ['channel_id', 'admin_id'])
    .addForeignKeyConstraint('channel_admins_channel_fk', ['tenant_id', 'channel_id'], 'channels', ['tenant_id', 'id'])
    .addForeignKeyConstraint('channel_admins_admin_fk', ['tenant_id', 'admin_id'], 'admins', ['tenant_id', 'id'])
    .execute();
  // Every authenticated request lists the channels of one admin.
  await db.schema.createIndex('channel_admins_admin_idx').on('channel_admins').column('admin_id').execute();

  await db.schema
    .createTable('auth_nonces')
    .addColumn('nonce', 'text', (col) => col.primaryKey())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('message_hash', 'text')
    .execute();
  await db.schema.createIndex('auth_nonces_expires_idx').on('auth_nonces').column('expires_at').execute();

  await db.schema
    .createTable('revoked_messages')
    .addColumn('message_hash', 'text', (col) => col.primaryKey())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('revoked_messages_expires_idx').on('revoked_messages').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'revoked_messages',
    'auth_nonces',
    'channel_admins',
    'channels',
    'admin_features',
    'admin_permissions',
    'admins',
    'tenant_features',
    'tenants',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
