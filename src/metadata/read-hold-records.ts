import type { Kysely } from 'kysely';
import type { ReadHolds } from '../model/read-holds.ts';
import type { Database } from './schema.ts';

/** Read holds on one database (src/model/read-holds.ts); lapsed holds are swept as new ones are taken. */
export function readHoldRecords(db: Kysely<Database>): ReadHolds {
  return {
    async takeReadHold(hold, maxPerAdmin, now) {
      await db.deleteFrom('read_holds').where('until', '<=', now).execute();
      await db
        .insertInto('read_holds')
        .values({ id: hold.id, channel_id: hold.channelId, admin_id: hold.adminId, until: hold.until })
        .execute();
      // Counted after the insert, so that of two racing for the last place each sees the other:
      // both may be refused, never both admitted.
      const row = await db
        .selectFrom('read_holds')
        .select((eb) => eb.fn.countAll<string | number>().as('held'))
        .where('admin_id', '=', hold.adminId)
        .where('until', '>', now)
        .executeTakeFirstOrThrow();
      if (Number(row.held) <= maxPerAdmin) return true;
      await db.deleteFrom('read_holds').where('id', '=', hold.id).execute();
      return false;
    },
    async renewReadHold(id, until) {
      await db.updateTable('read_holds').set({ until }).where('id', '=', id).execute();
    },
    async releaseReadHold(id) {
      await db.deleteFrom('read_holds').where('id', '=', id).execute();
    },
    async channelReadHeld(channelId, now) {
      const row = await db
        .selectFrom('read_holds')
        .select('id')
        .where('channel_id', '=', channelId)
        .where('until', '>', now)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
