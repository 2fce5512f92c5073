import { type Kysely, sql } from 'kysely';

/**
 * channel_clocks.tick_at: the time of the channel's newest tick, kept beside its clock so that a
 * write advances the clock and learns the time its own tick must not go below in one statement
 * (the upsert of the clock row), instead of reading clock_ticks under the row's lock.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channel_clocks').addColumn('tick_at', 'bigint').execute();
  await sql`update channel_clocks set tick_at = (select max(t.at) from clock_ticks t where t.channel_id = channel_clocks.channel_id)`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channel_clocks').dropColumn('tick_at').execute();
}
