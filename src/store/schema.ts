import type { AdminStatus } from './types.ts';

/** Row shapes as stored; times are epoch milliseconds (bigint in PostgreSQL, integer in SQLite). */
export interface TenantsTable {
  id: string;
  name: string;
  created_at: number;
}

export interface TenantFeaturesTable {
  tenant_id: string;
  feature: string;
}

export interface AdminsTable {
  id: string;
  tenant_id: string;
  wallet: string;
  display_name: string;
  owner_admin_id: string | null;
  status: AdminStatus;
  created_at: number;
  updated_at: number;
}

export interface AdminPermissionsTable {
  admin_id: string;
  permission: string;
}

export interface AdminFeaturesTable {
  admin_id: string;
  feature: string;
}

export interface ChannelsTable {
  id: string;
  tenant_id: string;
  name: string;
  created_at: number;
}

export interface ChannelAdminsTable {
  channel_id: string;
  admin_id: string;
  // Carried so that composite foreign keys can refuse a link across tenants.
  tenant_id: string;
}

export interface AuthNoncesTable {
  nonce: string;
  expires_at: number;
  message_hash: string | null;
}

export interface RevokedMessagesTable {
  message_hash: string;
  expires_at: number;
}

export interface Database {
  tenants: TenantsTable;
  tenant_features: TenantFeaturesTable;
  admins: AdminsTable;
  admin_permissions: AdminPermissionsTable;
  admin_features: AdminFeaturesTable;
  channels: ChannelsTable;
  channel_admins: ChannelAdminsTable;
  auth_nonces: AuthNoncesTable;
  revoked_messages: RevokedMessagesTable;
}

export type Engine = 'sqlite' | 'postgres';
