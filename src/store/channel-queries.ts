import type { Kysely, Selectable } from 'kysely';
import { AppError } from '../errors/app-error.ts';
import { adminNotFound, selectAdminTenant } from './admin-queries.ts';
import { CHANNEL_NAME_UNIQUE, violates } from './constraint-violations.ts';
import { newChannelId } from './ids.ts';
import type { ChannelsTable, Database } from './schema.ts';
import { requireTenant } from './tenant-queries.ts';
import type { Channel } from './types.ts';

type Db = Kysely<Database>;

export async function insertChannel(db: Db, tenantId: string, name: string, now: number): Promise<Channel> {
  await requireTenant(db, tenantId);
  const id = newChannelId();
  await db
    .insertInto('channels')
    .values({ id, tenant_id: tenantId, name, created_at: now })
    .execute()
    .catch((error: unknown) => {
      throw violates(error, CHANNEL_NAME_UNIQUE)
        ? new AppError('CHANNEL_NAME_TAKEN', `Tenant ${tenantId} already has a channel named ${JSON.stringify(name)}`)
        : error;
    });
  return { id, tenantId, name, createdAt: now };
}

export async function selectChannel(db: Db, by: { id: string } | { tenantId: string; name: string }): Promise<Channel | undefined> {
  const query = db.selectFrom('channels').selectAll();
  const row = await ('id' in by ? query.where('id', '=', by.id) : query.where('tenant_id', '=', by.tenantId).where('name', '=', by.name)).executeTakeFirst();
  return row && toChannel(row);
}

export async function selectChannelsOfTenant(db: Db, tenantId: string): Promise<Channel[]> {
  const rows = await db.selectFrom('channels').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at').orderBy('id').execute();
  if (rows.length === 0) await requireTenant(db, tenantId);
  return rows.map(toChannel);
}

export async function insertChannelLink(db: Db, channelId: string, adminId: string): Promise<void> {
  const tenantId = await requireSameTenant(db, channelId, adminId);
  await db
    .insertInto('channel_admins')
    .values({ channel_id: channelId, admin_id: adminId, tenant_id: tenantId })
    .onConflict((oc) => oc.columns(['channel_id', 'admin_id']).doNothing())
    .execute();
}

export async function deleteChannelLink(db: Db, channelId: string, adminId: string): Promise<void> {
  await requireSameTenant(db, channelId, adminId);
  await db.deleteFrom('channel_admins').where('channel_id', '=', channelId).where('admin_id', '=', adminId).execute();
}

/** The schema refuses a cross-tenant link too; checking first gives the caller a clear reason. */
async function requireSameTenant(db: Db, channelId: string, adminId: string): Promise<string> {
  const channel = await db.selectFrom('channels').select('tenant_id').where('id', '=', channelId).executeTakeFirst();
  if (!channel) throw new AppError('CHANNEL_NOT_FOUND', `Channel ${channelId} does not exist`);
  const adminTenant = await selectAdminTenant(db, adminId);
  if (adminTenant === undefined) throw adminNotFound(adminId);
  if (adminTenant !== channel.tenant_id) {
    throw new AppError('VALIDATION_FAILED', `Channel ${channelId} and admin ${adminId} belong to different tenants`);
  }
  return channel.tenant_id;
}

function toChannel(row: Selectable<ChannelsTable>): Channel {
  return { id: row.id, tenantId: row.tenant_id, name: row.name, createdAt: row.created_at };
}
