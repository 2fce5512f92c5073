import { type Kysely, sql } from 'kysely';

/**
 * Any instant, not only a backup's (see docs/architecture.md, "Backups are instants of a channel's history").
 *
 * - clock_ticks: one row per advance of a channel's clock, with the time of the write that made
 *   it (epoch ms): an instant T is the state at the newest seq ticked at or before T.
 * - channel_clocks.retained_from_seq / retained_from_at: the oldest seq whose state retention
 *   still holds completely (it deletes versions whose spans ended at or before it), and its time
 *   (null: from the channel's first tick).
 *
 * When each write happened before this migration is not known: every channel gets one tick, at
 * its current seq and now, so an instant before the upgrade is not retained rather than guessed.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('clock_ticks')
    .addColumn('channel_id', 'text', (col) => col.notNull().references('channels.id'))
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('clock_ticks_pk', ['channel_id', 'seq'])
    .execute();
  await db.schema
    .alterTable('channel_clocks')
    .addColumn('retained_from_seq', 'bigint', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('channel_clocks').addColumn('retained_from_at', 'bigint').execute();

  const now = Date.now();
  await sql`insert into clock_ticks (channel_id, seq, at)
    select c.id, coalesce(k.seq, 0), ${now} from channels c left join channel_clocks k on k.channel_id = c.id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channel_clocks').dropColumn('retained_from_at').execute();
  await db.schema.alterTable('channel_clocks').dropColumn('retained_from_seq').execute();
  await db.schema.dropTable('clock_ticks').execute();
}
