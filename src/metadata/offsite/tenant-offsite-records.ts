import SQLite from 'better-sqlite3';
import { CompiledQuery, type Kysely, type Selectable, type Transaction } from 'kysely';
import type {
  TenantOffsiteRecords,
  TenantOffsiteState,
  TenantOffsiteTarget,
  TenantSnapshot,
  TenantTableRows,
} from '../../model/tenant-offsite.ts';
import { inTransaction } from '../in-transaction.ts';
import type { Database, Engine, TenantOffsiteStateTable, TenantOffsiteTargetsTable } from '../schema.ts';
import { TENANT_TABLES, tenantRowsQuery } from './tenant-rows.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Row hashes are written this many at a time (SQLite's and PostgreSQL's parameter limits). */
const ROWS_PER_STATEMENT = 200;

/**
 * A tenant's own off-site copy in the metadata store: its target, the shipper's progress and
 * lease, and what the copy holds (each row's hash, each blob), from which a round ships the difference.
 */
export function tenantOffsiteRecords(db: Db, engine: Engine, sqliteFile?: string): TenantOffsiteRecords {
  return {
    async getTarget(tenantId) {
      const row = await db.selectFrom('tenant_offsite_targets').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
      return row && toTarget(row);
    },

    async targets() {
      return (await db.selectFrom('tenant_offsite_targets').selectAll().orderBy('tenant_id').execute()).map(toTarget);
    },

    async putTarget(target) {
      const row = targetRow(target);
      await db
        .insertInto('tenant_offsite_targets')
        .values(row)
        .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ ...row, created_at: undefined }))
        .execute();
    },

    async removeTarget(tenantId) {
      return inTransaction(db, async (trx) => {
        const removed = await trx.deleteFrom('tenant_offsite_targets').where('tenant_id', '=', tenantId).executeTakeFirst();
        await forget(trx, tenantId);
        return Number(removed.numDeletedRows) > 0;
      });
    },

    async state(tenantId) {
      const row = await db.selectFrom('tenant_offsite_state').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
      return row && toState(row);
    },

    async holdLease(tenantId, revision, token, until, now) {
      return inTransaction(db, async (trx) => {
        const row = await trx.selectFrom('tenant_offsite_state').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
        if (row && row.lease_token !== token && (row.lease_until ?? 0) > now) return false;
        if (row === undefined || row.revision !== revision) {
          // Another target (or none shipped yet): what the service knew of the old one's contents is void.
          await forget(trx, tenantId);
          await trx
            .insertInto('tenant_offsite_state')
            .values({
              tenant_id: tenantId,
              revision,
              lease_token: token,
              lease_until: until,
              shipped_seq: 0,
              bytes_shipped: 0,
              objects_shipped: 0,
              failures: 0,
            })
            .execute();
          return true;
        }
        const taken = await trx
          .updateTable('tenant_offsite_state')
          .set({ lease_token: token, lease_until: until })
          .where('tenant_id', '=', tenantId)
          .where((eb) => eb.or([eb('lease_token', '=', token), eb('lease_token', 'is', null), eb('lease_until', '<=', now)]))
          .executeTakeFirst();
        return Number(taken.numUpdatedRows) === 1;
      });
    },

    async releaseLease(tenantId, token) {
      await db
        .updateTable('tenant_offsite_state')
        .set({ lease_token: null, lease_until: null })
        .where('tenant_id', '=', tenantId)
        .where('lease_token', '=', token)
        .execute();
    },

    async setTargetId(tenantId, targetId) {
      await db.updateTable('tenant_offsite_state').set({ target_id: targetId }).where('tenant_id', '=', tenantId).execute();
    },

    async readTenant(tenantId, afterSeq) {
      if (engine === 'sqlite' && sqliteFile) return readSqliteTenant(sqliteFile, tenantId, afterSeq);
      const read = async (trx: Db) => readTenantRows(trx, engine, tenantId, afterSeq);
      if (engine === 'postgres' && !('isTransaction' in db && db.isTransaction)) {
        return (db as Kysely<Database>).transaction().setIsolationLevel('repeatable read').execute(read);
      }
      return inTransaction(db, read);
    },

    async shippedRows(tenantId) {
      const rows = await db
        .selectFrom('tenant_offsite_rows')
        .select(['tbl', 'row_key', 'row_hash'])
        .where('tenant_id', '=', tenantId)
        .execute();
      return new Map(rows.map((row) => [`${row.tbl}\u0000${row.row_key}`, row.row_hash]));
    },

    async shippedBlob(tenantId, blobKey) {
      const row = await db
        .selectFrom('tenant_offsite_blobs')
        .select('blob_key')
        .where('tenant_id', '=', tenantId)
        .where('blob_key', '=', blobKey)
        .executeTakeFirst();
      return row !== undefined;
    },

    async recordShipment(shipment) {
      return inTransaction(db, async (trx) => {
        let query = trx
          .updateTable('tenant_offsite_state')
          .set({
            generation: shipment.generation,
            segment: shipment.segment,
            segment_hash: shipment.segmentHash,
            shipped_seq: shipment.headSeq,
            shipped_at: shipment.at,
            scanned_at: shipment.at,
            last_error: null,
            last_error_at: null,
            failures: 0,
            next_attempt_at: null,
          })
          .set((eb) => ({
            bytes_shipped: eb('bytes_shipped', '+', shipment.bytes),
            objects_shipped: eb('objects_shipped', '+', shipment.objects),
          }))
          .where('tenant_id', '=', shipment.tenantId)
          .where('revision', '=', shipment.revision)
          .where('lease_token', '=', shipment.token);
        if (shipment.kind === 'snapshot') query = query.set({ generation_at: shipment.at, schema_version: shipment.schemaVersion });
        else query = query.where('generation', '=', shipment.generation).where('segment', '=', shipment.segment - 1);
        const moved = await query.executeTakeFirst();
        if (Number(moved.numUpdatedRows) !== 1) return false;
        if (shipment.kind === 'snapshot') await trx.deleteFrom('tenant_offsite_rows').where('tenant_id', '=', shipment.tenantId).execute();
        const upserts = shipment.rows.filter((row) => row.hash !== null);
        for (let i = 0; i < upserts.length; i += ROWS_PER_STATEMENT) {
          await trx
            .insertInto('tenant_offsite_rows')
            .values(
              upserts
                .slice(i, i + ROWS_PER_STATEMENT)
                .map((row) => ({ tenant_id: shipment.tenantId, tbl: row.table, row_key: row.key, row_hash: row.hash! })),
            )
            .onConflict((oc) =>
              oc.columns(['tenant_id', 'tbl', 'row_key']).doUpdateSet((eb) => ({ row_hash: eb.ref('excluded.row_hash') })),
            )
            .execute();
        }
        for (const row of shipment.rows.filter((r) => r.hash === null)) {
          await trx
            .deleteFrom('tenant_offsite_rows')
            .where('tenant_id', '=', shipment.tenantId)
            .where('tbl', '=', row.table)
            .where('row_key', '=', row.key)
            .execute();
        }
        const blobs = [...new Set(shipment.blobKeys)];
        for (let i = 0; i < blobs.length; i += ROWS_PER_STATEMENT) {
          await trx
            .insertInto('tenant_offsite_blobs')
            .values(blobs.slice(i, i + ROWS_PER_STATEMENT).map((blob_key) => ({ tenant_id: shipment.tenantId, blob_key })))
            .onConflict((oc) => oc.columns(['tenant_id', 'blob_key']).doNothing())
            .execute();
        }
        return true;
      });
    },

    async noteScanned(tenantId, headSeq, at) {
      await db
        .updateTable('tenant_offsite_state')
        .set({ shipped_seq: headSeq, scanned_at: at, last_error: null, last_error_at: null, failures: 0, next_attempt_at: null })
        .where('tenant_id', '=', tenantId)
        .execute();
    },

    async noteError(tenantId, message, at, nextAttemptAt) {
      await db
        .updateTable('tenant_offsite_state')
        .set((eb) => ({
          last_error: message.slice(0, 1000),
          last_error_at: at,
          next_attempt_at: nextAttemptAt,
          failures: eb('failures', '+', 1),
        }))
        .where('tenant_id', '=', tenantId)
        .execute();
    },

    async noteCheck(tenantId, revision, result, at) {
      await inTransaction(db, async (trx) => {
        const row = await trx.selectFrom('tenant_offsite_state').select('revision').where('tenant_id', '=', tenantId).executeTakeFirst();
        if (row === undefined || row.revision !== revision) {
          // A target tested before its first round (or just replaced): its check belongs to it.
          await forget(trx, tenantId);
          await trx
            .insertInto('tenant_offsite_state')
            .values({ tenant_id: tenantId, revision, shipped_seq: 0, bytes_shipped: 0, objects_shipped: 0, failures: 0 })
            .execute();
        }
        await trx
          .updateTable('tenant_offsite_state')
          .set({ last_check: result.slice(0, 1000), last_check_at: at })
          .where('tenant_id', '=', tenantId)
          .execute();
      });
    },

    async census() {
      const targets = await db
        .selectFrom('tenant_offsite_targets')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirst();
      const failing = await db
        .selectFrom('tenant_offsite_state')
        .innerJoin('tenant_offsite_targets', (join) =>
          join
            .onRef('tenant_offsite_targets.tenant_id', '=', 'tenant_offsite_state.tenant_id')
            .onRef('tenant_offsite_targets.revision', '=', 'tenant_offsite_state.revision'),
        )
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_offsite_state.last_error', 'is not', null)
        .executeTakeFirst();
      return { targets: Number(targets?.n ?? 0), failing: Number(failing?.n ?? 0) };
    },

    async backlog(tenantId, afterSeq) {
      const head = await db.selectFrom('audit_heads').select('seq').where('tenant_id', '=', tenantId).executeTakeFirst();
      const headSeq = Number(head?.seq ?? 0);
      if (headSeq <= afterSeq) return { headSeq, oldestAt: undefined, entries: 0 };
      const oldest = await db
        .selectFrom('audit_events')
        .select('created_at')
        .where('tenant_id', '=', tenantId)
        .where('chain_seq', '=', afterSeq + 1)
        .executeTakeFirst();
      return { headSeq, oldestAt: oldest === undefined ? undefined : Number(oldest.created_at), entries: headSeq - afterSeq };
    },
  };
}

async function forget(trx: Db, tenantId: string): Promise<void> {
  await trx.deleteFrom('tenant_offsite_state').where('tenant_id', '=', tenantId).execute();
  await trx.deleteFrom('tenant_offsite_rows').where('tenant_id', '=', tenantId).execute();
  await trx.deleteFrom('tenant_offsite_blobs').where('tenant_id', '=', tenantId).execute();
}

async function readTenantRows(db: Db, engine: Engine, tenantId: string, afterSeq: number): Promise<TenantSnapshot> {
  const tables: TenantTableRows[] = [];
  for (const table of TENANT_TABLES) {
    const { text, params } = tenantRowsQuery(table, afterSeq);
    let n = 0;
    const statement = engine === 'postgres' ? text.replace(/\?/g, () => `$${++n}`) : text;
    const result = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(statement, Array(params).fill(tenantId)));
    tables.push({ name: table.name, key: table.key, rows: result.rows });
  }
  const version = await db.executeQuery<{ name: string }>(
    CompiledQuery.raw('select name from kysely_migration order by name desc limit 1'),
  );
  return { schemaVersion: version.rows[0]?.name ?? '', headSeq: headOf(tables, tenantId), tables };
}

/** A read transaction on a connection of its own: WAL shows it the database as of its first read, and no writer waits. */
function readSqliteTenant(file: string, tenantId: string, afterSeq: number): TenantSnapshot {
  const reader = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    reader.prepare('begin').run();
    const tables: TenantTableRows[] = [];
    for (const table of TENANT_TABLES) {
      const { text, params } = tenantRowsQuery(table, afterSeq);
      tables.push({
        name: table.name,
        key: table.key,
        rows: reader.prepare(text).all(...Array(params).fill(tenantId)) as Record<string, unknown>[],
      });
    }
    const version = reader.prepare('select name from kysely_migration order by name desc limit 1').get() as { name: string } | undefined;
    reader.prepare('commit').run();
    return { schemaVersion: version?.name ?? '', headSeq: headOf(tables, tenantId), tables };
  } finally {
    reader.close();
  }
}

function headOf(tables: TenantTableRows[], tenantId: string): number {
  const head = tables.find((table) => table.name === 'audit_heads')?.rows.find((row) => row.tenant_id === tenantId);
  return Number(head?.seq ?? 0);
}

function toTarget(row: Selectable<TenantOffsiteTargetsTable>): TenantOffsiteTarget {
  return {
    tenantId: row.tenant_id,
    url: row.url,
    endpoint: row.endpoint,
    region: row.region,
    forcePathStyle: Number(row.force_path_style) === 1,
    accessKeyId: row.access_key_id,
    secretSealed: row.secret_sealed,
    recipients: JSON.parse(row.recipients) as string[],
    setBy: row.set_by,
    revision: Number(row.revision),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function targetRow(target: TenantOffsiteTarget): TenantOffsiteTargetsTable {
  return {
    tenant_id: target.tenantId,
    url: target.url,
    endpoint: target.endpoint,
    region: target.region,
    force_path_style: target.forcePathStyle ? 1 : 0,
    access_key_id: target.accessKeyId,
    secret_sealed: target.secretSealed,
    recipients: JSON.stringify(target.recipients),
    set_by: target.setBy,
    revision: target.revision,
    created_at: target.createdAt,
    updated_at: target.updatedAt,
  };
}

function toState(row: Selectable<TenantOffsiteStateTable>): TenantOffsiteState {
  const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    tenantId: row.tenant_id,
    revision: Number(row.revision),
    targetId: row.target_id,
    generation: row.generation,
    generationAt: num(row.generation_at),
    schemaVersion: row.schema_version,
    segment: num(row.segment),
    segmentHash: row.segment_hash,
    shippedSeq: Number(row.shipped_seq),
    shippedAt: num(row.shipped_at),
    scannedAt: num(row.scanned_at),
    bytesShipped: Number(row.bytes_shipped),
    objectsShipped: Number(row.objects_shipped),
    lastError: row.last_error,
    lastErrorAt: num(row.last_error_at),
    failures: Number(row.failures),
    nextAttemptAt: num(row.next_attempt_at),
    lastCheck: row.last_check,
    lastCheckAt: num(row.last_check_at),
  };
}
