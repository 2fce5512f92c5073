import type { Kysely, Transaction } from 'kysely';
import { chainEntry, ZERO_HASH } from '../../audit-chain/chain-entry.ts';
import { AppError, isAppError } from '../../errors/app-error.ts';
import { auditNotRecorded } from '../../errors/common-errors.ts';
import type { AuditEvent, AuditHead, ChainedAuditEvent, NewAuditEvent } from '../../model/audit.ts';
import { newAuditId } from '../../model/ids.ts';
import { inTransaction } from '../in-transaction.ts';
import { onPostgres } from '../on-postgres.ts';
import type { AuditEventsTable, Database } from '../schema.ts';
import { appendInOneStatement } from './audit-append-postgres.ts';
import { auditRow, toAuditEvent } from './file-catalog-rows.ts';

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

/**
 * Appends `event` to its tenant's chain; joins the caller's transaction when `db` is one, so that
 * the entry commits with the change it records or neither does. An event of a held operation's run
 * (`lease`) first renews that run's lease, which must still be its own (proposal-service.ts): a run
 * taken over by another instance commits nothing more. An append that fails for any reason but an
 * outage (which the caller may retry) is AUDIT_NOT_RECORDED: the transaction, and the change with
 * it, does not commit.
 */
export async function appendChained(db: Db, event: NewAuditEvent): Promise<AuditEvent> {
  const row = auditRow(newAuditId(), event);
  try {
    return await inTransaction(db, async (trx) => {
      if (event.lease !== undefined && event.proposalId != null) await renewLease(trx, event.proposalId, event.lease);
      return await appendRow(trx, row);
    });
  } catch (error) {
    throw isAppError(error) ? error : auditNotRecorded(error);
  }
}

/**
 * The run's lease, renewed in the transaction of each step, while its token is still the one in the
 * row: PROPOSAL_RUN_TAKEN_OVER (the step rolls back) once another instance has taken the run over.
 */
async function renewLease(trx: Transaction<Database>, proposalId: string, lease: { token: string; until: number }): Promise<void> {
  const renewed = await trx
    .updateTable('proposals')
    .set({ lease_until: lease.until })
    .where('id', '=', proposalId)
    .where('status', '=', 'running')
    .where('lease_token', '=', lease.token)
    .executeTakeFirst();
  if (renewed.numUpdatedRows !== 1n) {
    throw new AppError(
      'PROPOSAL_RUN_TAKEN_OVER',
      `The run of proposal ${proposalId} is no longer this one's (it was taken over or ended): this step was not made`,
    );
  }
}

/**
 * On PostgreSQL one statement, the entry hashed by the database (audit-append-postgres.ts), which a
 * write's commit runs while it holds its channel's clock, so that the tenant's head is held for
 * that statement and the commit only. Otherwise, and for a tenant's first append (no head yet) or
 * an event whose members spell the template's marks: the head moved on (its seq and the hash it
 * follows read back), then its new hash and the entry, on PostgreSQL in one statement (a
 * data-modifying CTE); SQLite, which has no such CTE and no round trip to save, runs them apart.
 */
async function appendRow(trx: Transaction<Database>, row: AuditEventsTable): Promise<AuditEvent> {
  // The hash covers the event as it reads back from its row (toAuditEvent), so that the export,
  // which reads it from there, shows exactly what was hashed.
  const event = toAuditEvent(row);
  if (onPostgres(trx) && (await appendInOneStatement(trx, row))) return event;
  const head = (await advanceHead(trx, row)) ?? (await startHead(trx, row));
  const entry = chainEntry(event, head.seq, head.prevHash);
  const values = { ...row, chain_seq: entry.seq, prev_hash: entry.prevHash, entry_hash: entry.hash };
  if (onPostgres(trx)) {
    await trx
      .with('head', (db) => db.updateTable('audit_heads').set({ hash: entry.hash }).where('tenant_id', '=', row.tenant_id))
      .insertInto('audit_events')
      .values(values)
      .execute();
  } else {
    await trx.updateTable('audit_heads').set({ hash: entry.hash }).where('tenant_id', '=', row.tenant_id).execute();
    await trx.insertInto('audit_events').values(values).execute();
  }
  return event;
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
