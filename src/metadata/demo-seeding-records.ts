import type { Kysely } from 'kysely';
import type { DemoSeedingRecords } from '../model/tenants.ts';
import { inTransaction } from './in-transaction.ts';
import type { Database } from './schema.ts';

/** The name of the one row: there is one demo per database. */
const DEMO = 'demo';

/** Where the demo data of a first start stands (migration 014 says why it is kept). */
export function demoSeedingRecords(db: Kysely<Database>, now: () => number): DemoSeedingRecords {
  return {
    async demoSeeding() {
      const row = await db.selectFrom('demo_seeding').select('completed_at').where('name', '=', DEMO).executeTakeFirst();
      if (row === undefined) return 'none';
      return row.completed_at === null ? 'begun' : 'complete';
    },

    async beginDemoSeeding() {
      // Under one transaction with the look at the tenants, so that no tenant made meanwhile (by the
      // CLI) is taken for a demo; of two starts on one database, one inserts the row.
      return inTransaction(db, async (trx) => {
        const tenant = await trx.selectFrom('tenants').select('id').limit(1).executeTakeFirst();
        if (tenant !== undefined) return false;
        const inserted = await trx
          .insertInto('demo_seeding')
          .values({ name: DEMO, begun_at: now(), completed_at: null })
          .onConflict((oc) => oc.column('name').doNothing())
          .executeTakeFirst();
        return inserted.numInsertedOrUpdatedRows === 1n;
      });
    },

    async completeDemoSeeding() {
      await db
        .updateTable('demo_seeding')
        .set({ completed_at: now() })
        .where('name', '=', DEMO)
        .where('completed_at', 'is', null)
        .execute();
    },
  };
}
