import { type Kysely, type Selectable, sql } from 'kysely';
import { AppError } from '../errors/app-error.ts';
import { adminNotFound } from '../errors/common-errors.ts';
import { tenantOfAdmin } from './admin-records.ts';
import { CHANNEL_NAME_UNIQUE, violates } from './database-errors.ts';
import { newChannelId } from './ids.ts';
import { canBeStoredKey, requireName } from './input-validation.ts';
import { decodeCursor, pageFrom } from './page-cursor.ts';
import type { ChannelsTable, Database } from './schema.ts';
import { requireTenant } from './tenant-records.ts';
import type { Channel, ChannelRecords } from './types.ts';

type Db = Kysely<Database>;

/** Channels of a tenant and the admins linked to them. */
export function channelRecords(db: Db, now: () => number): ChannelRecords {
  return {
    async createChannel(input) {
      const name = requireName(input.name, 'Channel name');
      const createdAt = now();
      await requireTenant(db, input.tenantId);
      const id = newChannelId();
      await db
        .insertInto('channels')
        .values({ id, tenant_id: input.tenantId, name, created_at: createdAt })
        .execute()
        .catch((error: unknown) => {
          throw violates(error, CHANNEL_NAME_UNIQUE)
            ? new AppError('CHANNEL_NAME_TAKEN', `Tenant ${input.tenantId} already has a channel named ${JSON.stringify(name)}`)
            : error;
        });
      return { id, tenantId: input.tenantId, name, createdAt };
    },

    async getChannel(id) {
      if (!canBeStoredKey(id)) return undefined;
      return selectChannel(db, { id });
    },

    async findChannelByName(tenantId, name) {
      if (!canBeStoredKey(name)) return undefined;
      return selectChannel(db, { tenantId, name: name.trim() });
    },

    async listChannels(tenantId) {
      const rows = await db
        .selectFrom('channels')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      if (rows.length === 0) await requireTenant(db, tenantId);
      return rows.map(toChannel);
    },

    async findChannelsByName(name) {
      if (!canBeStoredKey(name)) return [];
      const rows = await db
        .selectFrom('channels')
        .selectAll()
        .where('name', '=', name.trim())
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toChannel);
    },

    async listLinkedChannels(tenantId, adminId, page) {
      // The tenant is checked here too, not only by the links' foreign keys: a listing never
      // crosses tenants, whatever the links hold.
      let query = db
        .selectFrom('channel_admins as ca')
        .innerJoin('channels as c', 'c.id', 'ca.channel_id')
        .selectAll('c')
        .where('ca.admin_id', '=', adminId)
        .where('c.tenant_id', '=', tenantId);
      if (page.cursor !== undefined) {
        const [name, id] = decodeCursor(page.cursor, ['string', 'string']);
        query = query.where(sql<boolean>`(c.name, c.id) > (${name}, ${id})`);
      }
      const rows = await query
        .orderBy('c.name')
        .orderBy('c.id')
        .limit(page.limit + 1)
        .execute();
      return pageFrom(rows.map(toChannel), page.limit, (c) => [c.name, c.id]);
    },

    async linkChannel(channelId, adminId) {
      const tenantId = await requireSameTenant(db, channelId, adminId);
      await db
        .insertInto('channel_admins')
        .values({ channel_id: channelId, admin_id: adminId, tenant_id: tenantId })
        .onConflict((oc) => oc.columns(['channel_id', 'admin_id']).doNothing())
        .execute();
    },

    async unlinkChannel(channelId, adminId) {
      await requireSameTenant(db, channelId, adminId);
      await db.deleteFrom('channel_admins').where('channel_id', '=', channelId).where('admin_id', '=', adminId).execute();
    },
  };
}

async function selectChannel(db: Db, by: { id: string } | { tenantId: string; name: string }): Promise<Channel | undefined> {
  const query = db.selectFrom('channels').selectAll();
  const row = await ('id' in by
    ? query.where('id', '=', by.id)
    : query.where('tenant_id', '=', by.tenantId).where('name', '=', by.name)
  ).executeTakeFirst();
  return row && toChannel(row);
}

/** The schema refuses a cross-tenant link too; checking first gives the caller a clear reason. */
async function requireSameTenant(db: Db, channelId: string, adminId: string): Promise<string> {
  const channel = await db.selectFrom('channels').select('tenant_id').where('id', '=', channelId).executeTakeFirst();
  if (!channel) throw new AppError('CHANNEL_NOT_FOUND', `Channel ${channelId} does not exist`);
  const adminTenant = await tenantOfAdmin(db, adminId);
  if (adminTenant === undefined) throw adminNotFound(adminId);
  if (adminTenant !== channel.tenant_id) {
    throw new AppError('VALIDATION_FAILED', `Channel ${channelId} and admin ${adminId} belong to different tenants`);
  }
  return channel.tenant_id;
}

function toChannel(row: Selectable<ChannelsTable>): Channel {
  return { id: row.id, tenantId: row.tenant_id, name: row.name, createdAt: row.created_at };
}
