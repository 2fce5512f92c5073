import { type Kysely, type Selectable, sql } from 'kysely';
import { AppError } from '../errors/app-error.ts';
import { adminNotFound } from '../errors/common-errors.ts';
import { ambiguousChannels, type Channel, type ChannelRecords } from '../model/channels.ts';
import { newChannelId } from '../model/ids.ts';
import { tenantOfAdmin } from './admin-records.ts';
import { CHANNEL_NAME_UNIQUE, violates } from './database-errors.ts';
import { canBeStoredKey, lookupName, requireName } from './input-validation.ts';
import { type LegacySpellings, legacySpellings } from './legacy-spellings.ts';
import { decodeCursor, pageFrom } from './page-cursor.ts';
import type { ChannelsTable, Database } from './schema.ts';
import { requireTenant } from './tenant-records.ts';

type Db = Kysely<Database>;

/**
 * Channels of a tenant and the admins linked to them. A channel's name is stored in NFC
 * (requireName); one an older release stored in another spelling is found by either
 * (legacy-spellings.ts), and a name two channels share in look-alike spellings is NAME_AMBIGUOUS.
 */
export function channelRecords(db: Db, now: () => number, spellings: LegacySpellings = legacySpellings(db)): ChannelRecords {
  const channelsNamed = async (tenantId: string, name: string): Promise<Channel[]> => {
    if (!canBeStoredKey(name)) return [];
    const rows = await db
      .selectFrom('channels')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('name', 'in', await spellings.of(tenantId, 'channel', lookupName(name)))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toChannel);
  };
  return {
    async createChannel(input) {
      const name = requireName(input.name, 'Channel name');
      const createdAt = now();
      await requireTenant(db, input.tenantId);
      // The unique index refuses the same spelling; a look-alike an older release stored is the same name too.
      if ((await channelsNamed(input.tenantId, name)).length > 0) throw channelNameTaken(input.tenantId, name);
      const id = newChannelId();
      await db
        .insertInto('channels')
        .values({ id, tenant_id: input.tenantId, name, created_at: createdAt })
        .execute()
        .catch((error: unknown) => {
          throw violates(error, CHANNEL_NAME_UNIQUE) ? channelNameTaken(input.tenantId, name) : error;
        });
      return { id, tenantId: input.tenantId, name, createdAt, archivedAt: null };
    },

    async renameChannel(id, newName) {
      const name = requireName(newName, 'Channel name');
      const channel = await selectChannel(db, { id });
      if (!channel) throw new AppError('CHANNEL_NOT_FOUND', `Channel ${id} does not exist`);
      if ((await channelsNamed(channel.tenantId, name)).some((other) => other.id !== id)) throw channelNameTaken(channel.tenantId, name);
      await db
        .updateTable('channels')
        .set({ name })
        .where('id', '=', id)
        .execute()
        .catch((error: unknown) => {
          throw violates(error, CHANNEL_NAME_UNIQUE) ? channelNameTaken(channel.tenantId, name) : error;
        });
      return { ...channel, name };
    },

    async setChannelArchived(id, archived) {
      const at = now();
      const result = await db
        .updateTable('channels')
        // Archiving an archived channel keeps when it was first archived.
        .set({ archived_at: archived ? sql<number>`coalesce(archived_at, ${at})` : null })
        .where('id', '=', id)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) throw new AppError('CHANNEL_NOT_FOUND', `Channel ${id} does not exist`);
      return (await selectChannel(db, { id }))!;
    },

    async listChannelAdminIds(channelId) {
      const rows = await db.selectFrom('channel_admins').select('admin_id').where('channel_id', '=', channelId).execute();
      return rows.map((row) => row.admin_id).sort();
    },

    async getChannel(id) {
      if (!canBeStoredKey(id)) return undefined;
      return selectChannel(db, { id });
    },

    async findChannelByName(tenantId, name) {
      const found = await channelsNamed(tenantId, name);
      if (found.length > 1) throw ambiguousChannels(name, found);
      return found[0];
    },

    findChannelsNamed: channelsNamed,

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
        .where('name', 'in', await spellings.inEveryScope('channel', lookupName(name)))
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
      const inserted = await db
        .insertInto('channel_admins')
        .values({ channel_id: channelId, admin_id: adminId, tenant_id: tenantId })
        .onConflict((oc) => oc.columns(['channel_id', 'admin_id']).doNothing())
        .executeTakeFirst();
      // Counted by the write itself: a link another transaction made meanwhile is no change of this one.
      const linked = inserted.numInsertedOrUpdatedRows === 1n;
      if (linked) await touchAdmin(db, adminId);
      return linked;
    },

    async unlinkChannel(channelId, adminId) {
      await requireSameTenant(db, channelId, adminId);
      const deleted = await db
        .deleteFrom('channel_admins')
        .where('channel_id', '=', channelId)
        .where('admin_id', '=', adminId)
        .executeTakeFirst();
      const unlinked = deleted.numDeletedRows === 1n;
      if (unlinked) await touchAdmin(db, adminId);
      return unlinked;
    },
  };
}

async function selectChannel(db: Db, by: { id: string }): Promise<Channel | undefined> {
  const row = await db.selectFrom('channels').selectAll().where('id', '=', by.id).executeTakeFirst();
  return row && toChannel(row);
}

function channelNameTaken(tenantId: string, name: string): AppError {
  return new AppError('CHANNEL_NAME_TAKEN', `Tenant ${tenantId} already has a channel named ${JSON.stringify(name)}`);
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
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    createdAt: row.created_at,
    archivedAt: row.archived_at === null ? null : Number(row.archived_at),
  };
}

/** An admin's channels are part of its record: a link changes its revision (its ETag), not its row's update time. */
async function touchAdmin(db: Db, adminId: string): Promise<void> {
  await db.updateTable('admins').set({ revision: sql`revision + 1` }).where('id', '=', adminId).execute();
}
