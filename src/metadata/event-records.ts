import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { AuditResult, ChainedAuditEvent } from '../model/audit.ts';
import {
  type DeliveryRecord,
  type DeliveryStatus,
  type EventCursor,
  type EventRecords,
  type EventStream,
  NO_CHANNEL_KEY,
  type WebhookRecord,
} from '../model/events.ts';
import { newDeliveryId } from '../model/ids.ts';
import { toAuditEvent } from './catalog/file-catalog-rows.ts';
import { inTransaction } from './in-transaction.ts';
import { decodeCursor, pageFrom } from './page-cursor.ts';
import type { Database, Engine, EventCursorsTable, EventDeliveriesTable, EventStreamsTable, WebhooksTable } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Events out (docs/events.md), in the metadata store: webhooks, where each destination stands in
 * each chain, and the delivery log. The same SQL on both engines but for the lease: PostgreSQL
 * takes it with FOR UPDATE SKIP LOCKED, so that two instances claiming at once split the pairs
 * instead of waiting on each other; SQLite has one writer, so its UPDATE alone is atomic.
 */
export function eventRecords(db: Db, engine: Engine): EventRecords {
  const greatest = engine === 'postgres' ? 'greatest' : 'max';
  return {
    async insertWebhook(webhook, startSeq) {
      await inTransaction(db, async (trx) => {
        await trx.insertInto('webhooks').values(webhookRow(webhook)).execute();
        await trx
          .insertInto('event_streams')
          .values({
            destination: webhook.id,
            tenant_id: webhook.tenantId,
            start_seq: startSeq,
            scanned_seq: startSeq,
            low_water: startSeq,
            updated_at: webhook.createdAt,
          })
          .execute();
      });
    },

    async getWebhook(id) {
      const row = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toWebhook(row);
    },

    async listWebhooks(tenantId, page) {
      let query = db.selectFrom('webhooks').selectAll().where('tenant_id', '=', tenantId);
      if (page.cursor !== undefined) {
        const [createdAt, id] = decodeCursor(page.cursor, ['number', 'string'] as const);
        query = query.where((eb) =>
          eb.or([eb('created_at', '>', createdAt), eb.and([eb('created_at', '=', createdAt), eb('id', '>', id)])]),
        );
      }
      const rows = await query
        .orderBy('created_at')
        .orderBy('id')
        .limit(page.limit + 1)
        .execute();
      return pageFrom(rows.map(toWebhook), page.limit, (w) => [w.createdAt, w.id]);
    },

    async allWebhooks() {
      return (await db.selectFrom('webhooks').selectAll().orderBy('id').execute()).map(toWebhook);
    },

    async updateWebhook(id, revision, changes, at) {
      const set: Partial<WebhooksTable> = { updated_at: at, revision: revision + 1 };
      if (changes.urlSealed !== undefined) set.url_sealed = changes.urlSealed;
      if (changes.urlShown !== undefined) set.url_shown = changes.urlShown;
      if (changes.types !== undefined) set.types = JSON.stringify(changes.types);
      if (changes.channels !== undefined) set.channels = JSON.stringify(changes.channels);
      if (changes.folders !== undefined) set.folders = JSON.stringify(changes.folders);
      if (changes.results !== undefined) set.results = JSON.stringify(changes.results);
      if (changes.paused !== undefined) set.paused = changes.paused ? 1 : 0;
      if (changes.secretSealed !== undefined) set.secret_sealed = changes.secretSealed;
      if (changes.previousSecretSealed !== undefined) set.previous_secret_sealed = changes.previousSecretSealed;
      if (changes.previousSecretUntil !== undefined) set.previous_secret_until = changes.previousSecretUntil;
      if (changes.secretRotatedAt !== undefined) set.secret_rotated_at = changes.secretRotatedAt;
      const updated = await db.updateTable('webhooks').set(set).where('id', '=', id).where('revision', '=', revision).executeTakeFirst();
      return updated.numUpdatedRows === 1n;
    },

    async deleteWebhook(id) {
      return inTransaction(db, async (trx) => {
        await trx.deleteFrom('event_deliveries').where('destination', '=', id).execute();
        await trx.deleteFrom('event_cursors').where('destination', '=', id).execute();
        await trx.deleteFrom('event_streams').where('destination', '=', id).execute();
        const removed = await trx.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
        return removed.numDeletedRows === 1n;
      });
    },

    async knownDestinations() {
      const rows = await db.selectFrom('event_streams').select('destination').distinct().execute();
      return rows.map((row) => row.destination);
    },

    async forgetDestination(destination) {
      await inTransaction(db, async (trx) => {
        await trx.deleteFrom('event_deliveries').where('destination', '=', destination).execute();
        await trx.deleteFrom('event_cursors').where('destination', '=', destination).execute();
        await trx.deleteFrom('event_streams').where('destination', '=', destination).execute();
      });
    },

    async everyChainStream(destination, now) {
      // Most looks find the marker and every chain streamed already: then nothing is written.
      const [marker, unstreamed] = await Promise.all([
        db
          .selectFrom('event_streams')
          .select('tenant_id')
          .where('destination', '=', destination)
          .where('tenant_id', '=', '')
          .executeTakeFirst(),
        db
          .selectFrom('audit_heads')
          .select((eb) => eb.fn.countAll().as('n'))
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('event_streams')
                  .select('tenant_id')
                  .where('event_streams.destination', '=', destination)
                  .whereRef('event_streams.tenant_id', '=', 'audit_heads.tenant_id'),
              ),
            ),
          )
          .executeTakeFirst(),
      ]);
      if (marker === undefined || Number(unstreamed?.n ?? 0) > 0) await startStreams(db, destination, now);
      return streamsWithHeads(db, destination);
    },

    async streamOf(destination, tenantId) {
      return (await streamsWithHeads(db, destination, tenantId))[0];
    },

    async dueChains(destination, now) {
      const rows = await db
        .selectFrom('event_cursors')
        .select('tenant_id')
        .distinct()
        .where('destination', '=', destination)
        .whereRef('last_seq', '<', 'seen_seq')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
        .execute();
      return new Set(rows.map((row) => row.tenant_id));
    },

    async chainAfter(tenantId, afterSeq, limit) {
      const rows = await db
        .selectFrom('audit_events')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('chain_seq', '>', afterSeq)
        .orderBy('chain_seq')
        .limit(limit)
        .execute();
      return rows.map(toChained);
    },

    async channelAfter(tenantId, channelKey, afterSeq, limit) {
      let query = db.selectFrom('audit_events').selectAll().where('tenant_id', '=', tenantId).where('chain_seq', '>', afterSeq);
      // The tenant's own events are stored with the channel '' (migration 016), as were none null
      // before it; both read back as no channel.
      query =
        channelKey === NO_CHANNEL_KEY
          ? query.where((eb) => eb.or([eb('channel_id', '=', ''), eb('channel_id', 'is', null)]))
          : query.where('channel_id', '=', channelKey);
      const rows = await query.orderBy('chain_seq').limit(limit).execute();
      return rows.map(toChained);
    },

    async recordScan(stream, scannedSeq, seen, now) {
      if (seen.size === 0) {
        // A look that found nothing new writes nothing unless the low water moved: an idle service
        // takes no write lock (SQLite's one) and ships no change off-site per look.
        const low = await lowWaterOf(db, stream, scannedSeq);
        if (scannedSeq <= stream.scannedSeq && low <= stream.lowWater) return;
      }
      await inTransaction(db, async (trx) => {
        for (const [channelKey, seq] of seen) {
          // A pair seen for the first time has sent nothing: it starts where this scan started, as
          // no entry of its channel lay between the stream's start and there (it would have a cursor).
          await trx
            .insertInto('event_cursors')
            .values({
              destination: stream.destination,
              tenant_id: stream.tenantId,
              channel_key: channelKey,
              last_seq: stream.scannedSeq,
              seen_seq: seq,
              attempts: 0,
            })
            .onConflict((oc) =>
              oc.columns(['destination', 'tenant_id', 'channel_key']).doUpdateSet({
                seen_seq: sql`${sql.raw(greatest)}(event_cursors.seen_seq, excluded.seen_seq)`,
              }),
            )
            .execute();
        }
        const low = await lowWaterOf(trx, stream, scannedSeq);
        await trx
          .updateTable('event_streams')
          .set({
            scanned_seq: sql`${sql.raw(greatest)}(scanned_seq, ${scannedSeq})`,
            low_water: sql`${sql.raw(greatest)}(low_water, ${low})`,
            updated_at: now,
          })
          .where('destination', '=', stream.destination)
          .where('tenant_id', '=', stream.tenantId)
          .execute();
      });
    },

    async claimCursors(destination, tenantId, token, now, leaseUntil, limit) {
      const lock = engine === 'postgres' ? sql`for update skip locked` : sql``;
      const result = await sql<EventCursorsTable>`
        update event_cursors set lease_token = ${token}, lease_until = ${leaseUntil}
        where destination = ${destination} and tenant_id = ${tenantId} and channel_key in (
          select channel_key from event_cursors
          where destination = ${destination} and tenant_id = ${tenantId}
            and last_seq < seen_seq
            and (lease_until is null or lease_until < ${now})
            and (next_attempt_at is null or next_attempt_at <= ${now})
          order by last_seq limit ${limit} ${lock})
        returning *`.execute(db);
      return result.rows.map(toCursor);
    },

    async recordOutcome(cursor, token, outcome) {
      return inTransaction(db, async (trx) => {
        const moved = await trx
          .updateTable('event_cursors')
          .set({
            last_seq: outcome.lastSeq,
            attempts: outcome.attempts,
            first_failure_at: outcome.firstFailureAt,
            next_attempt_at: outcome.nextAttemptAt,
            lease_token: outcome.leaseUntil === null ? null : token,
            lease_until: outcome.leaseUntil,
          })
          .where('destination', '=', cursor.destination)
          .where('tenant_id', '=', cursor.tenantId)
          .where('channel_key', '=', cursor.channelKey)
          .where('lease_token', '=', token)
          .executeTakeFirst();
        if (moved.numUpdatedRows !== 1n) return false;
        const { event } = outcome;
        if (event !== null && outcome.status !== null) {
          await trx
            .insertInto('event_deliveries')
            .values({
              id: newDeliveryId(),
              destination: cursor.destination,
              tenant_id: cursor.tenantId,
              channel_key: cursor.channelKey,
              seq: event.seq,
              event_id: event.eventId,
              type: event.type,
              status: outcome.status,
              attempts: outcome.attempts === 0 ? 1 : outcome.attempts,
              http_status: outcome.httpStatus,
              error: outcome.error,
              latency_ms: outcome.latencyMs,
              next_attempt_at: outcome.nextAttemptAt,
              created_at: outcome.at,
              updated_at: outcome.at,
            })
            .onConflict((oc) =>
              oc.columns(['destination', 'tenant_id', 'seq']).doUpdateSet({
                status: outcome.status!,
                attempts: sql`event_deliveries.attempts + 1`,
                http_status: outcome.httpStatus,
                error: outcome.error,
                latency_ms: outcome.latencyMs,
                next_attempt_at: outcome.nextAttemptAt,
                updated_at: outcome.at,
              }),
            )
            .execute();
        }
        return true;
      });
    },

    async updateDelivery(id, changes) {
      await db
        .updateTable('event_deliveries')
        .set({
          status: changes.status,
          attempts: changes.attempts,
          http_status: changes.httpStatus,
          error: changes.error,
          latency_ms: changes.latencyMs,
          next_attempt_at: null,
          updated_at: changes.updatedAt,
        })
        .where('id', '=', id)
        .execute();
    },

    async retryNow(destination, tenantId, channelKey, now) {
      await db
        .updateTable('event_cursors')
        .set({ next_attempt_at: now })
        .where('destination', '=', destination)
        .where('tenant_id', '=', tenantId)
        .where('channel_key', '=', channelKey)
        .where('next_attempt_at', '>', now)
        .execute();
    },

    async getDelivery(id) {
      const row = await db.selectFrom('event_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toDelivery(row);
    },

    async listDeliveries(destination, page, status) {
      // Newest first: ids are time-ordered (dlv_…), and the index (destination, id) serves the order.
      let query = db.selectFrom('event_deliveries').selectAll().where('destination', '=', destination);
      if (status !== undefined) query = query.where('status', '=', status);
      if (page.cursor !== undefined) {
        const [id] = decodeCursor(page.cursor, ['string'] as const);
        query = query.where('id', '<', id);
      }
      const rows = await query
        .orderBy('id', 'desc')
        .limit(page.limit + 1)
        .execute();
      return pageFrom(rows.map(toDelivery), page.limit, (d) => [d.id]);
    },

    async lastDeliveries(destinations) {
      const last = new Map<string, DeliveryRecord>();
      for (const destination of destinations) {
        const row = await db
          .selectFrom('event_deliveries')
          .selectAll()
          .where('destination', '=', destination)
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        if (row !== undefined) last.set(destination, toDelivery(row));
      }
      return last;
    },

    async pruneDeliveries(before) {
      const removed = await db
        .deleteFrom('event_deliveries')
        .where('status', 'in', ['delivered', 'dead'])
        .where('updated_at', '<', before)
        .executeTakeFirst();
      return Number(removed.numDeletedRows);
    },
  };
}

/** The destination's marker and a stream for each chain not streamed yet (see everyChainStream). */
async function startStreams(db: Db, destination: string, now: number): Promise<void> {
  await inTransaction(db, async (trx) => {
    // The marker row (no chain is named '') says the destination was seen: before it, every
    // existing chain starts at its head; after it, a chain not yet streamed is a new one and
    // starts at its beginning.
    const marked = await trx
      .insertInto('event_streams')
      .values({ destination, tenant_id: '', start_seq: 0, scanned_seq: 0, low_water: 0, updated_at: now })
      .onConflict((oc) => oc.columns(['destination', 'tenant_id']).doNothing())
      .executeTakeFirst();
    const firstSight = Number(marked.numInsertedOrUpdatedRows ?? 0n) === 1;
    await trx
      .insertInto('event_streams')
      .columns(['destination', 'tenant_id', 'start_seq', 'scanned_seq', 'low_water', 'updated_at'])
      .expression((eb) =>
        eb
          .selectFrom('audit_heads')
          .select([
            sql.lit(destination).as('destination'),
            'tenant_id',
            firstSight ? 'seq' : sql.lit(0).as('s1'),
            firstSight ? 'seq' : sql.lit(0).as('s2'),
            firstSight ? 'seq' : sql.lit(0).as('s3'),
            sql.lit(now).as('updated_at'),
          ] as never)
          .where('tenant_id', 'not in', eb.selectFrom('event_streams').select('tenant_id').where('destination', '=', destination)),
      )
      .onConflict((oc) => oc.columns(['destination', 'tenant_id']).doNothing())
      .execute();
  });
}

/** A destination's streams (or one of them), each with its chain's head: the marker row left out. */
async function streamsWithHeads(db: Db, destination: string, tenantId?: string): Promise<EventStream[]> {
  let query = db
    .selectFrom('event_streams')
    .leftJoin('audit_heads', 'audit_heads.tenant_id', 'event_streams.tenant_id')
    .selectAll('event_streams')
    .select('audit_heads.seq as head_seq')
    .where('event_streams.destination', '=', destination);
  query = query.where('event_streams.tenant_id', tenantId === undefined ? '!=' : '=', tenantId ?? '');
  const rows = await query.execute();
  return rows.map((row) => ({ ...toStream(row), headSeq: row.head_seq == null ? 0 : Number(row.head_seq) }));
}

/** Every pair with events left holds the low water at its cursor; none, and it is where the scan stands. */
async function lowWaterOf(db: Db, stream: EventStream, scannedSeq: number): Promise<number> {
  const behind = await db
    .selectFrom('event_cursors')
    .select((eb) => eb.fn.min('last_seq').as('low'))
    .where('destination', '=', stream.destination)
    .where('tenant_id', '=', stream.tenantId)
    .whereRef('last_seq', '<', 'seen_seq')
    .executeTakeFirst();
  return behind?.low == null ? scannedSeq : Math.min(Number(behind.low), scannedSeq);
}

function webhookRow(w: WebhookRecord): WebhooksTable {
  return {
    id: w.id,
    tenant_id: w.tenantId,
    created_by: w.createdBy,
    url_sealed: w.urlSealed,
    url_shown: w.urlShown,
    types: JSON.stringify(w.types),
    channels: JSON.stringify(w.channels),
    folders: JSON.stringify(w.folders),
    results: JSON.stringify(w.results),
    paused: w.paused ? 1 : 0,
    secret_sealed: w.secretSealed,
    previous_secret_sealed: w.previousSecretSealed,
    previous_secret_until: w.previousSecretUntil,
    secret_rotated_at: w.secretRotatedAt,
    revision: w.revision,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
  };
}

const numberOrNull = (value: number | string | null): number | null => (value === null ? null : Number(value));

function toWebhook(row: Selectable<WebhooksTable>): WebhookRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    createdBy: row.created_by,
    urlSealed: row.url_sealed,
    urlShown: row.url_shown,
    types: JSON.parse(row.types) as string[],
    channels: JSON.parse(row.channels) as string[],
    folders: JSON.parse(row.folders) as string[],
    results: JSON.parse(row.results) as AuditResult[],
    paused: Number(row.paused) === 1,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretUntil: numberOrNull(row.previous_secret_until),
    secretRotatedAt: numberOrNull(row.secret_rotated_at),
    revision: Number(row.revision),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toStream(row: Selectable<EventStreamsTable>): Omit<EventStream, 'headSeq'> {
  return {
    destination: row.destination,
    tenantId: row.tenant_id,
    startSeq: Number(row.start_seq),
    scannedSeq: Number(row.scanned_seq),
    lowWater: Number(row.low_water),
  };
}

function toCursor(row: Selectable<EventCursorsTable>): EventCursor {
  return {
    destination: row.destination,
    tenantId: row.tenant_id,
    channelKey: row.channel_key,
    lastSeq: Number(row.last_seq),
    seenSeq: Number(row.seen_seq),
    attempts: Number(row.attempts),
    firstFailureAt: numberOrNull(row.first_failure_at),
    nextAttemptAt: numberOrNull(row.next_attempt_at),
    leaseToken: row.lease_token,
    leaseUntil: numberOrNull(row.lease_until),
  };
}

function toDelivery(row: Selectable<EventDeliveriesTable>): DeliveryRecord {
  return {
    id: row.id,
    destination: row.destination,
    tenantId: row.tenant_id,
    channelKey: row.channel_key,
    seq: Number(row.seq),
    eventId: row.event_id,
    type: row.type,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    httpStatus: numberOrNull(row.http_status),
    error: row.error,
    latencyMs: numberOrNull(row.latency_ms),
    nextAttemptAt: numberOrNull(row.next_attempt_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toChained(row: Selectable<Database['audit_events']>): ChainedAuditEvent {
  return { event: toAuditEvent(row), seq: Number(row.chain_seq), prevHash: row.prev_hash!, hash: row.entry_hash! };
}
