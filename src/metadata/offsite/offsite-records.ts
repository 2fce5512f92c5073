import SQLite from 'better-sqlite3';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { CapturedChange, OffsiteLoader, OffsiteRecords, OffsiteState, ShippedObject, Snapshot } from '../../model/offsite.ts';
import { durableTransaction } from '../durable-transaction.ts';
import type { Database, Engine, OffsiteObjectsTable, OffsiteStateTable } from '../schema.ts';
import { changeCaptureInstalled, installChangeCapture, removeChangeCapture } from './change-capture.ts';
import { SHIPPED_TABLES, shippedTable } from './shipped-tables.ts';

const STATE = 'shipper';

/**
 * The oldest transaction id that may still commit a change into this database, as of the
 * statement's snapshot: the oldest one in progress, leaving out those that belong to another
 * database of the cluster (a transaction can write only in its own database). The cluster-wide
 * horizon (txid_snapshot_xmin) held every change back for as long as any transaction anywhere on
 * the server stayed open: a report or an idle-in-transaction session of another application on a
 * shared server stopped the off-site copy. A transaction that ended after the snapshot, or one
 * whose database this role may not see (pg_stat_activity shows other roles' xids only to
 * pg_read_all_stats), stays in the horizon: it may only hold changes back, never let one through
 * early. Transaction ids carry their epoch here (txid_*), pg_stat_activity's do not: compared
 * modulo 2^32.
 */
const SHIPPING_HORIZON = sql<string>`(
  select coalesce(min(x), txid_snapshot_xmax(txid_current_snapshot()))
  from txid_snapshot_xip(txid_current_snapshot()) as x
  where not exists (
    select 1 from pg_stat_activity a
    where a.backend_xid is not null
      and a.datname is distinct from current_database()
      and a.backend_xid::text::bigint = x % 4294967296
  )
)`;

/**
 * The shipper's side of the metadata store (migration 022). `sqliteFile`: a snapshot of a SQLite
 * database reads through a connection of its own, so that its read transaction holds no writer
 * back (WAL gives it the database as of its start); without it, through this one.
 */
export function offsiteRecords(db: Kysely<Database>, engine: Engine, sqliteFile?: string): OffsiteRecords {
  const durable = durableTransaction(db, engine);
  return {
    captureInstalled: () => changeCaptureInstalled(db, engine),
    installCapture: () => installChangeCapture(db, engine),
    removeCapture: () => removeChangeCapture(db, engine),
    schemaVersion: () => schemaVersion(db),

    async state() {
      const row = await db.selectFrom('offsite_state').selectAll().where('name', '=', STATE).executeTakeFirst();
      return row ? stateOf(row) : undefined;
    },

    async requireSnapshot() {
      await db.updateTable('offsite_state').set({ schema_version: null }).where('name', '=', STATE).execute();
    },

    async beginTarget(target, targetId) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('offsite_state').where('name', '=', STATE).execute();
        await trx.insertInto('offsite_state').values({ name: STATE, target, target_id: targetId }).execute();
        await trx.deleteFrom('offsite_changes').execute();
        await trx.deleteFrom('offsite_objects').execute();
      });
    },

    async holdLease(token, until, now) {
      // On SQLite this commit is synced (synchronous = FULL), and with it every commit before it:
      // what the shipper reads next is on disk, so the copy never holds a change a power loss takes back.
      return durable(async (trx) => {
        const result = await trx
          .updateTable('offsite_state')
          .set({ lease_token: token, lease_until: until })
          .where('name', '=', STATE)
          .where((eb) => eb.or([eb('lease_token', 'is', null), eb('lease_token', '=', token), eb('lease_until', '<', now)]))
          .executeTakeFirst();
        return Number(result.numUpdatedRows) === 1;
      });
    },

    async releaseLease(token) {
      await db.updateTable('offsite_state').set({ lease_token: null, lease_until: null }).where('lease_token', '=', token).execute();
    },

    async takeSnapshot(generation, at) {
      if (engine === 'postgres') {
        return db
          .transaction()
          .setIsolationLevel('repeatable read')
          .execute(async (trx) => {
            const snapshot = await readSnapshot(trx);
            // The changes this read sees are in it; those it does not see (still running, or
            // committed after it began) stay queued for the segments after it.
            await trx.deleteFrom('offsite_changes').execute();
            await startGeneration(trx, generation, at, snapshot.schemaVersion);
            return snapshot;
          });
      }
      const { snapshot, throughSeq } = sqliteFile ? readSqliteSnapshot(sqliteFile) : await db.transaction().execute(readWithSeq);
      // SQLite commits one writer at a time, in seq order: every change up to the read's last seq is
      // in it. Synced (synchronous = FULL), and with it every commit the read saw: the copy never
      // holds a state a power loss takes back.
      await durable(async (trx) => {
        await trx.deleteFrom('offsite_changes').where('seq', '<=', throughSeq).execute();
        await startGeneration(trx, generation, at, snapshot.schemaVersion);
      });
      return snapshot;
    },

    async snapshotShipped(generation, hash, at, auditHeads, object, blobKeys) {
      await db.transaction().execute(async (trx) => {
        await insertObject(trx, object, at);
        await nameBlobs(trx, generation, blobKeys);
        await trx
          .updateTable('offsite_state')
          .set({
            segment: 0,
            segment_hash: hash,
            segment_at: at,
            audit_heads: JSON.stringify(auditHeads),
            last_error: null,
            last_error_at: null,
          })
          .set((eb) => ({ bytes_shipped: eb('bytes_shipped', '+', object.size), objects_shipped: eb('objects_shipped', '+', 1) }))
          .where('name', '=', STATE)
          .where('generation', '=', generation)
          .execute();
      });
    },

    async nextChanges(next, limit, at) {
      // Synced on SQLite: the marks (a retry after a power loss must send this very segment, with
      // this header time) and every change committed before them, which is what it may ship.
      return durable(async (trx) => {
        const marked = await trx.selectFrom('offsite_changes').selectAll().where('segment', '=', next).orderBy('seq').execute();
        if (marked.length > 0) return marked.map(changeOf);
        let query = trx.selectFrom('offsite_changes').select('seq').where('segment', 'is', null).orderBy('seq').limit(limit);
        // Sequences are not commit-ordered on PostgreSQL: a change is shipped only once every
        // transaction that began before its own has ended, so none can still commit before it.
        if (engine === 'postgres') query = query.where(sql<boolean>`xid < ${SHIPPING_HORIZON}`);
        const seqs = (await query.execute()).map((row) => row.seq);
        if (seqs.length === 0) return [];
        const last = seqs[seqs.length - 1]!;
        await trx.updateTable('offsite_changes').set({ segment: next }).where('seq', 'in', seqs).execute();
        await trx.updateTable('offsite_state').set({ pending_segment: next, pending_at: at }).where('name', '=', STATE).execute();
        const rows = await trx
          .selectFrom('offsite_changes')
          .selectAll()
          .where('segment', '=', next)
          .where('seq', '<=', last)
          .orderBy('seq')
          .execute();
        return rows.map(changeOf);
      });
    },

    async segmentShipped(segment, hash, at, auditHeads, object, blobKeys) {
      await db.transaction().execute(async (trx) => {
        await insertObject(trx, object, at);
        if (object.generation !== null) await nameBlobs(trx, object.generation, blobKeys);
        // Only from the segment before, in this generation. A shipper whose lease lapsed while it
        // sent this segment may return after another instance took over, shipped it and went on:
        // moving the state back would have the next segment "shipped" onto a name the target
        // already holds (write-once: it keeps the other's) and its changes deleted, lost to the
        // copy. The object is at the target all the same, and is recorded above.
        const moved = await trx
          .updateTable('offsite_state')
          .set({
            segment,
            segment_hash: hash,
            segment_at: at,
            audit_heads: JSON.stringify(auditHeads),
            pending_segment: null,
            pending_at: null,
            last_error: null,
            last_error_at: null,
          })
          .set((eb) => ({ bytes_shipped: eb('bytes_shipped', '+', object.size), objects_shipped: eb('objects_shipped', '+', 1) }))
          .where('name', '=', STATE)
          .where('generation', '=', object.generation)
          .where('segment', '=', segment - 1)
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows) === 1) await trx.deleteFrom('offsite_changes').where('segment', '=', segment).execute();
      });
    },

    async generations() {
      const rows = await db
        .selectFrom('offsite_objects')
        .select(['generation', 'name', 'shipped_at'])
        .where('kind', '=', 'segment')
        .orderBy('name')
        .execute();
      const byGeneration = new Map<string, { generation: string; snapshotAt: number | null; lastAt: number }>();
      for (const row of rows) {
        if (row.generation === null) continue;
        const entry = byGeneration.get(row.generation) ?? { generation: row.generation, snapshotAt: null, lastAt: 0 };
        if (row.name.endsWith('/000000000000.age')) entry.snapshotAt = Number(row.shipped_at);
        entry.lastAt = Math.max(entry.lastAt, Number(row.shipped_at));
        byGeneration.set(row.generation, entry);
      }
      return [...byGeneration.values()];
    },

    async releaseGeneration(generation) {
      return db.transaction().execute(async (trx) => {
        const segments = await trx
          .selectFrom('offsite_objects')
          .selectAll()
          .where('kind', '=', 'segment')
          .where('generation', '=', generation)
          .execute();
        const named = await trx.selectFrom('offsite_generation_blobs').select('blob_key').where('generation', '=', generation).execute();
        await trx.deleteFrom('offsite_generation_blobs').where('generation', '=', generation).execute();
        const blobs: ShippedObject[] = [];
        for (const { blob_key: key } of named) {
          const elsewhere = await trx
            .selectFrom('offsite_generation_blobs')
            .select('generation')
            .where('blob_key', '=', key)
            .limit(1)
            .executeTakeFirst();
          if (elsewhere) continue;
          const live = await trx.selectFrom('files').select('channel_id').where('blob_key', '=', key).limit(1).executeTakeFirst();
          const kept = await trx.selectFrom('file_versions').select('id').where('blob_key', '=', key).limit(1).executeTakeFirst();
          const queued = await trx
            .selectFrom('offsite_changes')
            .select('seq')
            .where('row', 'like', `%"${key}"%`)
            .limit(1)
            .executeTakeFirst();
          if (live || kept || queued) continue;
          const object = await trx.selectFrom('offsite_objects').selectAll().where('blob_key', '=', key).executeTakeFirst();
          if (object) blobs.push(objectOf(object));
        }
        return { segments: segments.map(objectOf), blobs };
      });
    },

    async forgetObject(name) {
      await db.deleteFrom('offsite_objects').where('name', '=', name).execute();
    },

    async recordObject(object) {
      await db.transaction().execute(async (trx) => {
        await insertObject(trx, object, Date.now());
        await trx
          .updateTable('offsite_state')
          .set((eb) => ({ bytes_shipped: eb('bytes_shipped', '+', object.size), objects_shipped: eb('objects_shipped', '+', 1) }))
          .where('name', '=', STATE)
          .execute();
      });
    },

    async shippedBlob(blobKey) {
      const row = await db.selectFrom('offsite_objects').selectAll().where('blob_key', '=', blobKey).executeTakeFirst();
      return row ? objectOf(row) : undefined;
    },

    async blobReleasable(blobKey) {
      const shipped = await db.selectFrom('offsite_objects').select('name').where('blob_key', '=', blobKey).executeTakeFirst();
      if (shipped) return true;
      const state = await db.selectFrom('offsite_state').select('segment').where('name', '=', STATE).executeTakeFirst();
      if (state === undefined) return true;
      if (state.segment === null) return false;
      // Keys are hex and slashes (blob-layout.ts): nothing in them is a LIKE wildcard.
      const queued = await db
        .selectFrom('offsite_changes')
        .select('seq')
        .where('row', 'like', `%"${blobKey}"%`)
        .limit(1)
        .executeTakeFirst();
      return queued === undefined;
    },
    async deferBlobDelete(blobKey, at) {
      await db
        .insertInto('offsite_deferred_deletes')
        .values({ blob_key: blobKey, deferred_at: at })
        .onConflict((oc) => oc.column('blob_key').doNothing())
        .execute();
    },
    async deferredBlobDeletes(limit) {
      const rows = await db.selectFrom('offsite_deferred_deletes').select('blob_key').orderBy('deferred_at').limit(limit).execute();
      return rows.map((row) => row.blob_key);
    },
    async forgetDeferredDelete(blobKey) {
      await db.deleteFrom('offsite_deferred_deletes').where('blob_key', '=', blobKey).execute();
    },

    async blobNamed(blobKey) {
      const file = await db.selectFrom('files').select('channel_id').where('blob_key', '=', blobKey).executeTakeFirst();
      if (file) return true;
      const version = await db.selectFrom('file_versions').select('id').where('blob_key', '=', blobKey).executeTakeFirst();
      return version !== undefined;
    },

    async *objects(kind) {
      let after = '';
      for (;;) {
        let query = db.selectFrom('offsite_objects').selectAll().where('name', '>', after).orderBy('name').limit(1000);
        if (kind) query = query.where('kind', '=', kind);
        const rows = await query.execute();
        for (const row of rows) yield objectOf(row);
        if (rows.length < 1000) return;
        after = rows[rows.length - 1]!.name;
      }
    },

    async backlog() {
      const row = await db
        .selectFrom('offsite_changes')
        .select((eb) => [eb.fn.min('at').as('oldest'), eb.fn.countAll<number>().as('changes')])
        .executeTakeFirstOrThrow();
      return { oldestAt: row.oldest === null ? null : Number(row.oldest), changes: Number(row.changes) };
    },

    async noteError(message, at) {
      await db
        .updateTable('offsite_state')
        .set({ last_error: message, last_error_at: message === null ? null : at })
        .where('name', '=', STATE)
        .execute();
    },
    async noteCheck(result, at) {
      await db.updateTable('offsite_state').set({ last_check: result, last_check_at: at }).where('name', '=', STATE).execute();
    },
    async noteDrill(result, at) {
      await db.updateTable('offsite_state').set({ last_drill: result, last_drill_at: at }).where('name', '=', STATE).execute();
    },

    async queuedKeys() {
      const keys = new Set<string>();
      const rows = await db.selectFrom('offsite_changes').select(['table_name', 'old_key', 'row']).execute();
      for (const row of rows) {
        for (const json of [row.old_key, row.row])
          if (json !== null) keys.add(rowKey(row.table_name, JSON.parse(json) as Record<string, unknown>));
      }
      return keys;
    },

    async rows(table) {
      const shipped = shippedTable(table);
      if (!shipped) throw new Error(`${table} is not a shipped table`);
      let query = db.selectFrom(shipped.name).selectAll();
      for (const column of shipped.key) query = query.orderBy(sql.ref(column));
      return (await query.execute()) as Record<string, unknown>[];
    },

    load: (work) => loadInto(db, work),
  };
}

/** Loads a copy into the (empty) database, in one transaction per call of `work`. */
async function loadInto(db: Kysely<Database>, work: (loader: OffsiteLoader) => Promise<void>): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await work({
      async insertRows(table, rows) {
        const shipped = shippedTable(table);
        if (!shipped) throw new Error(`a copy holds rows of ${table}, which is not a shipped table`);
        // Within one statement's limit of bound parameters on both engines.
        const columns = Math.max(1, Object.keys(rows[0] ?? {}).length);
        const chunk = Math.max(1, Math.floor(900 / columns));
        for (let i = 0; i < rows.length; i += chunk) {
          await trx
            .insertInto(shipped.name)
            .values(rows.slice(i, i + chunk) as never)
            .execute();
        }
      },
      async applyChange(change) {
        const shipped = shippedTable(change.table);
        if (!shipped) throw new Error(`a copy holds a change of ${change.table}, which is not a shipped table`);
        const keyOf = (row: Record<string, unknown>) => Object.fromEntries(shipped.key.map((column) => [column, row[column]]));
        const oldKey = change.oldKey ? keyOf(change.oldKey) : undefined;
        if (change.op === 'delete' || (change.op === 'update' && oldKey && change.row && !sameKey(oldKey, keyOf(change.row)))) {
          let query = trx.deleteFrom(shipped.name);
          for (const [column, value] of Object.entries(oldKey ?? {})) query = query.where(sql.ref(column), '=', value as never);
          await query.execute();
        }
        if (change.op === 'delete' || !change.row) return;
        const row = change.row;
        const rest = Object.fromEntries(Object.entries(row).filter(([column]) => !shipped.key.includes(column)));
        await trx
          .insertInto(shipped.name)
          .values(row as never)
          .onConflict((oc) => {
            const target = oc.columns(shipped.key as never);
            return Object.keys(rest).length > 0 ? target.doUpdateSet(rest as never) : target.doNothing();
          })
          .execute();
      },
      async namedBlobs() {
        const files = await trx.selectFrom('files').select('blob_key').execute();
        const versions = await trx.selectFrom('file_versions').select('blob_key').execute();
        return [...new Set([...files, ...versions].map((row) => row.blob_key).filter((key): key is string => key !== null))];
      },
      async signOutAll(at) {
        await trx.updateTable('admins').set({ signed_out_before: at }).execute();
      },
      async queuePublicCopies(at) {
        await sql`insert into public_copies_due (channel_id, folder, filename, queued_at) select channel_id, folder, filename, ${at} from files`.execute(
          trx,
        );
      },
    });
  });
}

/** `table:[key values]`: one row of a shipped table, whatever else it holds (the drill compares by it). */
export function rowKey(table: string, row: Record<string, unknown>): string {
  const shipped = shippedTable(table);
  return `${table}:${JSON.stringify(shipped?.key.map((column) => row[column]) ?? [])}`;
}

function sameKey(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return Object.keys(a).every((column) => a[column] === b[column]);
}

async function schemaVersion(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name desc limit 1`.execute(db);
  return rows[0]?.name ?? '';
}

async function readSnapshot(db: Kysely<Database>): Promise<Snapshot> {
  const tables: Snapshot['tables'] = [];
  for (const table of SHIPPED_TABLES) {
    const order = 'loadOrder' in table ? table.loadOrder : table.key;
    let query = db.selectFrom(table.name).selectAll();
    for (const column of order) query = query.orderBy(sql.ref(column));
    tables.push({ name: table.name, rows: (await query.execute()) as Record<string, unknown>[] });
  }
  return { schemaVersion: await schemaVersion(db), tables };
}

async function readWithSeq(db: Kysely<Database>): Promise<{ snapshot: Snapshot; throughSeq: number }> {
  const snapshot = await readSnapshot(db);
  const row = await db
    .selectFrom('offsite_changes')
    .select((eb) => eb.fn.max('seq').as('seq'))
    .executeTakeFirst();
  return { snapshot, throughSeq: Number(row?.seq ?? 0) };
}

/** A read transaction on a connection of its own: WAL shows it the database as of its first read. */
function readSqliteSnapshot(file: string): { snapshot: Snapshot; throughSeq: number } {
  const reader = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    reader.prepare('begin').run();
    const tables: Snapshot['tables'] = [];
    for (const table of SHIPPED_TABLES) {
      const order = ('loadOrder' in table ? table.loadOrder : table.key).map((column) => `"${column}"`).join(', ');
      tables.push({
        name: table.name,
        rows: reader.prepare(`select * from "${table.name}" order by ${order}`).all() as Record<string, unknown>[],
      });
    }
    const version = reader.prepare('select name from kysely_migration order by name desc limit 1').get() as { name: string } | undefined;
    const seq = reader.prepare('select max(seq) as seq from offsite_changes').get() as { seq: number | null };
    reader.prepare('commit').run();
    return { snapshot: { schemaVersion: version?.name ?? '', tables }, throughSeq: seq.seq ?? 0 };
  } finally {
    reader.close();
  }
}

async function startGeneration(db: Kysely<Database>, generation: string, at: number, version: string): Promise<void> {
  await db
    .updateTable('offsite_state')
    .set({
      generation,
      generation_at: at,
      schema_version: version,
      segment: null,
      segment_hash: null,
      pending_segment: null,
      pending_at: null,
    })
    .where('name', '=', STATE)
    .execute();
  await db.updateTable('offsite_changes').set({ segment: null }).where('segment', 'is not', null).execute();
}

async function nameBlobs(db: Kysely<Database>, generation: string, keys: string[]): Promise<void> {
  const unique = [...new Set(keys)];
  for (let i = 0; i < unique.length; i += 400) {
    await db
      .insertInto('offsite_generation_blobs')
      .values(unique.slice(i, i + 400).map((blob_key) => ({ generation, blob_key })))
      .onConflict((oc) => oc.columns(['generation', 'blob_key']).doNothing())
      .execute();
  }
}

async function insertObject(db: Kysely<Database>, object: ShippedObject, at: number): Promise<void> {
  await db
    .insertInto('offsite_objects')
    .values({
      name: object.name,
      kind: object.kind,
      generation: object.generation,
      blob_key: object.blobKey,
      cipher_sha256: object.cipherSha256,
      size: object.size,
      shipped_at: at,
    })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

function changeOf(row: {
  seq: number;
  table_name: string;
  op: CapturedChange['op'];
  old_key: string | null;
  row: string | null;
  at: number;
}): CapturedChange {
  return {
    seq: Number(row.seq),
    table: row.table_name,
    op: row.op,
    oldKey: row.old_key === null ? null : (JSON.parse(row.old_key) as Record<string, unknown>),
    row: row.row === null ? null : (JSON.parse(row.row) as Record<string, unknown>),
    at: Number(row.at),
  };
}

function objectOf(row: Selectable<OffsiteObjectsTable>): ShippedObject {
  return {
    name: row.name,
    kind: row.kind,
    generation: row.generation,
    blobKey: row.blob_key,
    cipherSha256: row.cipher_sha256,
    size: Number(row.size),
  };
}

function stateOf(row: Selectable<OffsiteStateTable>): OffsiteState {
  const num = (value: number | null) => (value === null ? null : Number(value));
  return {
    target: row.target,
    targetId: row.target_id,
    generation: row.generation,
    generationAt: num(row.generation_at),
    schemaVersion: row.schema_version,
    segment: num(row.segment),
    segmentHash: row.segment_hash,
    segmentAt: num(row.segment_at),
    auditHeads: row.audit_heads ? (JSON.parse(row.audit_heads) as OffsiteState['auditHeads']) : {},
    pendingSegment: num(row.pending_segment),
    pendingAt: num(row.pending_at),
    leaseToken: row.lease_token,
    leaseUntil: num(row.lease_until),
    bytesShipped: Number(row.bytes_shipped),
    objectsShipped: Number(row.objects_shipped),
    lastError: row.last_error,
    lastErrorAt: num(row.last_error_at),
    lastCheckAt: num(row.last_check_at),
    lastCheck: row.last_check,
    lastDrillAt: num(row.last_drill_at),
    lastDrill: row.last_drill,
  };
}
