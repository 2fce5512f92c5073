import { type RawBuilder, sql, type Transaction } from 'kysely';
import { chainEntry } from '../../audit-chain/chain-entry.ts';
import type { EntryTemplate } from '../../audit-chain/entry-template.ts';
import type { AuditEvent } from '../../model/audit.ts';
import type { AuditEventsTable, Database } from '../schema.ts';

type Trx = Transaction<Database>;

/** Written from the head the statement locks, not from the event. */
const CHAIN_COLUMNS = new Set(['chain_seq', 'prev_hash', 'entry_hash']);

/**
 * An append on PostgreSQL in one statement: the tenant's head locked and read as it is now, the
 * entry hashed by the database from `template` (sha256 of the canonical JSON with the head's next
 * seq and hash put in), the head advanced and the entry inserted. The head's row is locked from
 * this statement to the commit: one round trip and the commit, where reading the head back first
 * and hashing here held it over two and the commit, and every writer of the tenant (and, in a
 * write's commit, of the channel, whose clock is taken before) queued that much longer.
 *
 * `SELECT … FOR UPDATE` waits for a concurrent append's commit and then reads the head that one
 * wrote, not the statement's snapshot (read committed), so the chain never forks; the UPDATE of
 * the same row in the statement re-reads it as well, and sets only what the locked read gave.
 *
 * False, with nothing written, when the tenant has no head yet (its first append: the caller
 * makes it). The hash is checked here against the one the service computes: a mismatch would be a
 * broken entry, so it throws and the transaction, with the change it records, does not commit.
 */
export async function appendInOneStatement(trx: Trx, row: AuditEventsTable, event: AuditEvent, template: EntryTemplate): Promise<boolean> {
  const columns = (Object.keys(row) as (keyof AuditEventsTable)[]).filter((c) => !CHAIN_COLUMNS.has(c) && row[c] !== undefined);
  const values = Object.fromEntries(columns.map((c) => [c, row[c]]));
  const [before, between, after] = template.parts;
  const [first, second]: RawBuilder<unknown>[] =
    template.first === 'prevHash' ? [sql`old.hash`, sql`(old.seq + 1)::text`] : [sql`(old.seq + 1)::text`, sql`old.hash`];
  const covered = sql`${before}::text || ${first} || ${between}::text || ${second} || ${after}::text`;
  // json_populate_record gives each value its column's type, as the VALUES of an insert would.
  const { rows } = await sql<{ chain_seq: string; prev_hash: string; entry_hash: string }>`
    with old as (select seq, hash from audit_heads where tenant_id = ${row.tenant_id} for update),
    entry as (select old.seq + 1 as seq, old.hash as prev_hash, encode(sha256(convert_to(${covered}, 'UTF8')), 'hex') as hash from old),
    head as (update audit_heads h set seq = entry.seq, hash = entry.hash, updated_at = ${row.created_at}
             from entry where h.tenant_id = ${row.tenant_id})
    insert into audit_events (${sql.join(columns.map((c) => sql.ref(c)))}, chain_seq, prev_hash, entry_hash)
    select ${sql.join(columns.map((c) => sql.ref(`r.${c}`)))}, entry.seq, entry.prev_hash, entry.hash
    from json_populate_record(null::audit_events, ${JSON.stringify(values)}::json) r, entry
    returning chain_seq, prev_hash, entry_hash`.execute(trx);
  const appended = rows[0];
  if (appended === undefined) return false;
  const expected = chainEntry(event, Number(appended.chain_seq), appended.prev_hash);
  if (expected.hash !== appended.entry_hash) {
    throw new Error(
      `the audit entry ${row.id} hashed as ${appended.entry_hash} in the database, ${expected.hash} here; nothing was recorded`,
    );
  }
  return true;
}
