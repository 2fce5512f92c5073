import type { Kysely, Transaction } from 'kysely';
import { chainEntry, ZERO_HASH } from '../../audit-chain/chain-entry.ts';
import type { AuditEvent, AuditHead, ChainedAuditEvent } from '../../model/audit.ts';
import type { AuditEventsTable, Database } from '../schema.ts';
import { toAuditEvent } from './file-catalog-rows.ts';

/**
 * Appending to a tenant's audit chain and reading it back (docs/audit-chain.md). An append reads
 * and advances the tenant's head (audit_heads) and inserts the event in one transaction; the head's
 * row is the lock that orders appends. On PostgreSQL the UPDATE … RETURNING that advances the head
 * holds its row lock until commit, so a concurrent append on any instance waits for it and then
 * reads the head this one wrote: one chain, no fork. On SQLite the UPDATE is the transaction's first
 * statement, so it takes the database's one write lock at once (never a read lock that would have
 * to be upgraded, which can fail with SQLITE_BUSY).
 */

type Db = Kysely<Database> | Transaction<Database>;

/** Appends `row` (its chain columns not yet set) to its tenant's chain; joins the caller's transaction when `db` is one. */
export async function appendChained(db: Db, row: AuditEventsTable): Promise<AuditEvent> {
  const work = async (trx: Transaction<Database> | Kysely<Database>): Promise<AuditEvent> => {
    const head = (await advanceHead(trx, row)) ?? (await startHead(trx, row));
    // The hash covers the event as it reads back from its row (toAuditEvent), so that the export,
    // which reads it from there, shows exactly what was hashed.
    const event = toAuditEvent(row);
    const entry = chainEntry(event, head.seq, head.prevHash);
    await trx.updateTable('audit_heads').set({ hash: entry.hash }).where('tenant_id', '=', row.tenant_id).execute();
    await trx
      .insertInto('audit_events')
      .values({ ...row, chain_seq: entry.seq, prev_hash: entry.prevHash, entry_hash: entry.hash })
      .execute();
    return event;
  };
  // Kysely opens no transaction inside another: inside the caller's, its commit is ours.
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/** The head moved one step on (its row locked until commit): the new entry's seq, and the hash it follows. */
async function advanceHead(trx: Db, row: AuditEventsTable): Promise<{ seq: number; prevHash: string } | undefined> {
  const head = await trx
    .updateTable('audit_heads')
    .set((eb) => ({ seq: eb('seq', '+', 1), updated_at: row.created_at }))
    .where('tenant_id', '=', row.tenant_id)
    .returning(['seq', 'hash'])
    .executeTakeFirst();
  return head && { seq: Number(head.seq), prevHash: head.hash };
}

/** A tenant's first append: its head, created by whichever append comes first (the others find it). */
async function startHead(trx: Db, row: AuditEventsTable): Promise<{ seq: number; prevHash: string }> {
  await trx
    .insertInto('audit_heads')
    .values({ tenant_id: row.tenant_id, seq: 0, hash: ZERO_HASH, updated_at: row.created_at })
    .onConflict((oc) => oc.column('tenant_id').doNothing())
    .execute();
  const head = await advanceHead(trx, row);
  if (head === undefined) throw new Error(`The audit chain head of tenant ${row.tenant_id} vanished while appending`);
  return head;
}

export async function readHead(db: Db, tenantId: string): Promise<AuditHead> {
  const head = await db.selectFrom('audit_heads').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();
  if (head === undefined) return { tenantId, seq: 0, hash: ZERO_HASH, at: null };
  return { tenantId, seq: Number(head.seq), hash: head.hash, at: Number(head.updated_at) };
}

/** Entries after `afterSeq`, oldest first, by the unique index (tenant_id, chain_seq): a keyset page whatever the log's size. */
export async function chainPage(db: Db, tenantId: string, afterSeq: number, limit: number): Promise<ChainedAuditEvent[]> {
  const rows = await db
    .selectFrom('audit_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('chain_seq', '>', afterSeq)
    .orderBy('chain_seq', 'asc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ event: toAuditEvent(row), seq: Number(row.chain_seq), prevHash: row.prev_hash!, hash: row.entry_hash! }));
}
