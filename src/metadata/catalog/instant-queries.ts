import type { Kysely, Transaction } from 'kysely';
import type { InstantResolution } from '../../model/history.ts';
import type { Database } from '../schema.ts';
import { clockRow } from './channel-history.ts';

type Db = Kysely<Database> | Transaction<Database>;

export async function seqAtTime(db: Db, channelId: string, at: number): Promise<InstantResolution> {
  const clock = await clockRow(db, channelId);
  const retainedFrom = Number(clock?.retained_from_seq ?? 0);
  const tick = await db
    .selectFrom('clock_ticks')
    .select('seq')
    .where('channel_id', '=', channelId)
    .where('at', '<=', at)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (tick !== undefined && Number(tick.seq) >= retainedFrom) return { retained: true, seq: Number(tick.seq) };
  if (tick === undefined) {
    const any = await db.selectFrom('clock_ticks').select('seq').where('channel_id', '=', channelId).limit(1).executeTakeFirst();
    // Never written and created after migration 006: empty at every instant.
    if (any === undefined) return { retained: true, seq: 0 };
  }
  const recorded = clock?.retained_from_at;
  return { retained: false, oldestRetainedAt: recorded == null ? await oldestTickFrom(db, channelId, retainedFrom) : Number(recorded) };
}

/** When the first state from `seq` on was ticked: the oldest instant whose state is complete. */
async function oldestTickFrom(db: Db, channelId: string, seq: number): Promise<number> {
  const row = await db
    .selectFrom('clock_ticks')
    .select('at')
    .where('channel_id', '=', channelId)
    .where('seq', '>=', seq)
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
  return Number(row?.at ?? 0);
}

/**
 * Retention deleted versions whose spans ended at or before `seq`: states before it are no longer
 * complete. Moves the channel's retained start there (never back), and drops the ticks only
 * those states needed (the one at the start stays: it times it).
 */
export async function retainFrom(trx: Transaction<Database>, channelId: string, seq: number): Promise<void> {
  const clock = await clockRow(trx, channelId);
  if (clock === undefined || Number(clock.retained_from_seq) >= seq) return;
  const at = await oldestTickFrom(trx, channelId, seq);
  await trx
    .updateTable('channel_clocks')
    .set({ retained_from_seq: seq, retained_from_at: at })
    .where('channel_id', '=', channelId)
    .execute();
  const kept = await trx
    .selectFrom('clock_ticks')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .where('channel_id', '=', channelId)
    .where('seq', '<=', seq)
    .executeTakeFirst();
  if (kept?.seq !== null && kept?.seq !== undefined)
    await trx.deleteFrom('clock_ticks').where('channel_id', '=', channelId).where('seq', '<', Number(kept.seq)).execute();
}
