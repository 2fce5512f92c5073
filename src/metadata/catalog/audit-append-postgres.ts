import { type RawBuilder, sql, type Transaction } from 'kysely';
import { chainEntry } from '../../audit-chain/chain-entry.ts';
import { type EntryTemplate, entryTemplate } from '../../audit-chain/entry-template.ts';
import { auditNotRecorded } from '../../errors/common-errors.ts';
import type { AuditEvent } from '../../model/audit.ts';
import type { AuditEventsTable, Database } from '../schema.ts';
import { toAuditEvent } from './file-catalog-rows.ts';

type Trx = Transaction<Database>;

/** Written from the head the statement locks, not from the event. */
const CHAIN_COLUMNS = new Set(['chain_seq', 'prev_hash', 'entry_hash']);

/**
 * An append on PostgreSQL as part of one statement: the tenant's head locked and read as it is
 * now, the entry hashed by the database from its template (sha256 of the canonical JSON with the
 * head's next seq and hash put in), the head advanced and the entry inserted. The head's row is
 * locked from that statement to the commit: one round trip and the commit, where reading the head
 * back first and hashing in the service held it over two and the commit, and every writer of the
 * tenant queued that much longer.
 *
 * `SELECT … FOR UPDATE` waits for a concurrent append's commit and then reads the head that one
 * wrote, not the statement's snapshot (read committed), so the chain never forks; the UPDATE of
 * the same row in the statement re-reads it as well, and sets only what the locked read gave.
 */
export interface ChainedAppend {
  /** The statement's CTEs `audit_old`, `audit_entry`, `audit_head` and `audit_appended` (chain_seq, prev_hash, entry_hash). */
  ctes: RawBuilder<unknown>;
  /** Checks what `audit_appended` returned; false when it inserted nothing: the tenant has no head yet. */
  appended(row: { chain_seq: string; prev_hash: string; entry_hash: string } | undefined): boolean;
}

/**
 * The append of `row` as CTEs of a statement, or undefined when an event's members spell a mark of
 * the template (the caller appends it in two statements). `after`, a CTE of the same statement
 * that yields one row, is evaluated before the head is locked: a write's channel clock, which
 * every writer takes before the head, so that two writers never wait on each other in turn.
 */
export function chainedAppend(row: AuditEventsTable, after?: string): ChainedAppend | undefined {
  const event = toAuditEvent(row);
  const template = entryTemplate(event);
  if (template === undefined) return undefined;
  const columns = (Object.keys(row) as (keyof AuditEventsTable)[]).filter((c) => !CHAIN_COLUMNS.has(c) && row[c] !== undefined);
  const values = Object.fromEntries(columns.map((c) => [c, row[c]]));
  const ordered = after === undefined ? sql`` : sql`, ${sql.table(after)}`;
  // FOR UPDATE OF locks after the join: once `after` has given its row, never before.
  const ctes = sql`audit_old as (select h.seq, h.hash from audit_heads h${ordered} where h.tenant_id = ${row.tenant_id} for update of h),
    audit_entry as (select audit_old.seq + 1 as seq, audit_old.hash as prev_hash, ${hashOf(template)} as hash from audit_old),
    audit_head as (update audit_heads h set seq = audit_entry.seq, hash = audit_entry.hash, updated_at = ${row.created_at}
      from audit_entry where h.tenant_id = ${row.tenant_id}),
    audit_appended as (insert into audit_events (${sql.join(columns.map((c) => sql.ref(c)))}, chain_seq, prev_hash, entry_hash)
      select ${sql.join(columns.map((c) => sql.ref(`r.${c}`)))}, audit_entry.seq, audit_entry.prev_hash, audit_entry.hash
      from json_populate_record(null::audit_events, ${JSON.stringify(values)}::json) r, audit_entry
      returning chain_seq, prev_hash, entry_hash)`;
  return { ctes, appended: (appended) => checked(row, event, appended) };
}

/** The append alone, in one statement; false, with nothing written, when there is no template or no head yet. */
export async function appendInOneStatement(trx: Trx, row: AuditEventsTable): Promise<boolean> {
  const append = chainedAppend(row);
  if (append === undefined) return false;
  const { rows } = await sql<{ chain_seq: string; prev_hash: string; entry_hash: string }>`
    with ${append.ctes} select chain_seq, prev_hash, entry_hash from audit_appended`.execute(trx);
  return append.appended(rows[0]);
}

/** sha256 of the template with the head's next seq and its hash put in, as lowercase hex; json_populate_record gives each value its column's type. */
function hashOf(template: EntryTemplate): RawBuilder<unknown> {
  const [before, between, after] = template.parts;
  const [first, second] =
    template.first === 'prevHash'
      ? [sql`audit_old.hash`, sql`(audit_old.seq + 1)::text`]
      : [sql`(audit_old.seq + 1)::text`, sql`audit_old.hash`];
  return sql`encode(sha256(convert_to(${before}::text || ${first} || ${between}::text || ${second} || ${after}::text, 'UTF8')), 'hex')`;
}

/**
 * The database's hash checked against the one the service computes: a mismatch would be a broken
 * entry, so it is AUDIT_NOT_RECORDED and the transaction, with the change it records, does not commit.
 */
function checked(
  row: AuditEventsTable,
  event: AuditEvent,
  appended: { chain_seq: string; prev_hash: string; entry_hash: string } | undefined,
) {
  if (appended === undefined) return false;
  const expected = chainEntry(event, Number(appended.chain_seq), appended.prev_hash);
  if (expected.hash !== appended.entry_hash) {
    throw auditNotRecorded(
      new Error(`the audit entry ${row.id} hashed as ${appended.entry_hash} in the database, ${expected.hash} here; nothing was recorded`),
    );
  }
  return true;
}
