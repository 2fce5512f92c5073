import type { Kysely } from 'kysely';
import type { ServiceSecrets } from '../model/sign-in-records.ts';
import type { Database } from './schema.ts';

/** Keys every instance on this database shares; the first instance that needs one makes it. */
export function serviceSecrets(db: Kysely<Database>): ServiceSecrets {
  return {
    async serviceSecret(name, create) {
      // Of instances starting together, the first insert wins and every one reads the winner's value.
      await db
        .insertInto('service_secrets')
        .values({ name, value: create() })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const row = await db.selectFrom('service_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
      return row.value;
    },
  };
}
