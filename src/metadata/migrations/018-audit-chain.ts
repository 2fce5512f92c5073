import { type Kysely, sql } from 'kysely';
import { chainEntry, ZERO_HASH } from '../../audit-chain/chain-entry.ts';
import type { AuditEvent } from '../../model/audit.ts';
import { newAuditId } from '../../model/ids.ts';
import { auditRow, toAuditEvent } from '../catalog/file-catalog-rows.ts';
import type { AuditEventsTable } from '../schema.ts';

/**
 * Each tenant's audit log becomes a hash chain (docs/audit-chain.md):
 *
 * - audit_events.chain_seq, prev_hash, entry_hash: the event's place in its tenant's chain (1, 2,
 *   3…, unique per tenant) and its hashes; audit_events.intents: the signed intents an event
 *   carries (JSON), covered by its hash.
 * - audit_heads: one row per tenant, its last seq and hash; every append advances it under its lock.
 *
 * A tenant that already has events gets a genesis entry first (seq 1, action audit.chain-start),
 * written now and saying how many entries were written before chaining, which seqs they take and
 * the last one's id and time; then those entries, chained in the order the log lists them
 * (created_at, id), seq 2 to N+1. So an export is the whole log and every line of it verifies; the
 * genesis entry tells a reader that what the chain vouches for, for those N entries, is that they
 * have not changed since the upgrade, not that they were never edited before it.
 */

// Keyset pages, to keep memory flat however long a tenant's log is.
const PAGE = 1000;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_events').addColumn('chain_seq', 'bigint').execute();
  await db.schema.alterTable('audit_events').addColumn('prev_hash', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('entry_hash', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('intents', 'text').execute();
  // The export's order, and what makes two entries at one seq of a tenant (a fork) impossible.
  await db.schema.createIndex('audit_events_chain_idx').on('audit_events').columns(['tenant_id', 'chain_seq']).unique().execute();
  await db.schema
    .createTable('audit_heads')
    .addColumn('tenant_id', 'text', (col) => col.primaryKey())
    .addColumn('seq', 'bigint', (col) => col.notNull())
    .addColumn('hash', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .execute();

  const tenants = await db.selectFrom('audit_events').select('tenant_id').distinct().orderBy('tenant_id').execute();
  for (const { tenant_id: tenantId } of tenants) await chainTenant(db, tenantId as string, Date.now());
}

async function chainTenant(db: Kysely<any>, tenantId: string, now: number): Promise<void> {
  const { count } = await db
    .selectFrom('audit_events')
    .select(sql<string>`count(*)`.as('count'))
    .where('tenant_id', '=', tenantId)
    .executeTakeFirstOrThrow();
  const last = await db
    .selectFrom('audit_events')
    .select(['id', 'created_at'])
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  const entries = Number(count);
  const genesis = auditRow(newAuditId(), {
    tenantId,
    channelId: null,
    adminId: null,
    action: 'audit.chain-start',
    folder: null,
    filename: null,
    backupTimestamp: null,
    versionId: null,
    at: null,
    result: 'ok',
    code: null,
    sha256: null,
    createdAt: now,
    operationId: null,
    operation: null,
    change: {
      before: null,
      after: {
        preChainEntries: entries,
        firstPreChainSeq: 2,
        lastPreChainSeq: entries + 1,
        lastPreChainId: last.id,
        lastPreChainAt: Number(last.created_at),
      },
    },
  });
  let prev = chainEntry(toAuditEvent(genesis), 1, ZERO_HASH);
  // The columns of this migration's time: those added later (020: operator, proposal_id) do not exist yet.
  const { operator: _operator, proposal_id: _proposalId, ...columns } = genesis;
  await db
    .insertInto('audit_events')
    .values({ ...columns, chain_seq: 1, prev_hash: ZERO_HASH, entry_hash: prev.hash })
    .execute();

  let cursor: [number, string] | undefined;
  for (;;) {
    let page = db.selectFrom('audit_events').selectAll().where('tenant_id', '=', tenantId).where('chain_seq', 'is', null);
    if (cursor) page = page.where(sql<boolean>`(created_at, id) > (${cursor[0]}, ${cursor[1]})`);
    const rows = (await page.orderBy('created_at').orderBy('id').limit(PAGE).execute()) as AuditEventsTable[];
    for (const row of rows) {
      const event: AuditEvent = toAuditEvent({ ...row, created_at: Number(row.created_at) });
      const entry = chainEntry(event, prev.seq + 1, prev.hash);
      await db
        .updateTable('audit_events')
        .set({ chain_seq: entry.seq, prev_hash: entry.prevHash, entry_hash: entry.hash })
        .where('id', '=', row.id)
        .execute();
      prev = entry;
    }
    if (rows.length < PAGE) break;
    const lastRow = rows[rows.length - 1]!;
    cursor = [Number(lastRow.created_at), lastRow.id];
  }
  await db.insertInto('audit_heads').values({ tenant_id: tenantId, seq: prev.seq, hash: prev.hash, updated_at: now }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // The genesis entries exist only for the chain; every other event stays, as it was before.
  await db.deleteFrom('audit_events').where('action', '=', 'audit.chain-start').execute();
  await db.schema.dropTable('audit_heads').execute();
  await db.schema.dropIndex('audit_events_chain_idx').execute();
  for (const column of ['intents', 'entry_hash', 'prev_hash', 'chain_seq']) {
    await db.schema.alterTable('audit_events').dropColumn(column).execute();
  }
}
