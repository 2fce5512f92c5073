import type { Kysely } from 'kysely';

/**
 * One truthful history (docs/audit-chain.md, "What the chain guarantees"):
 *
 * - audit_events.operator: who acted when no admin did and the service did not either: the
 *   operator's label (OPERATOR_LABEL) on the events of the operator's local CLI.
 * - audit_events.proposal_id: the proposal whose run made the event; every step of a held
 *   operation carries it, so that a run taken over after a crash can tell its own changes from others'.
 * - proposals.lease_token, lease_until: the run of a proposal belongs to whoever holds the token
 *   until then; each of its steps renews the lease in its own transaction, and a run whose lease
 *   lapsed (its process died) is taken over by another instance, once (proposal-runs.ts).
 * - proposals.run_from_seq: the tenant's chain head when the run began, from which a takeover
 *   reads what changed since; run_attempts: how many times it was taken over, so that a run that
 *   fails every time ends `failed` instead of `running` for ever.
 *
 * Events and proposals written before have none of these: null, and 0 attempts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_events').addColumn('operator', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('proposal_id', 'text').execute();
  await db.schema.alterTable('proposals').addColumn('lease_token', 'text').execute();
  await db.schema.alterTable('proposals').addColumn('lease_until', 'bigint').execute();
  await db.schema.alterTable('proposals').addColumn('run_from_seq', 'bigint').execute();
  await db.schema
    .alterTable('proposals')
    .addColumn('run_attempts', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  // What the takeover sweep reads on every instance: the runs whose lease lapsed.
  await db.schema.createIndex('proposals_lease_idx').on('proposals').columns(['status', 'lease_until']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('proposals_lease_idx').execute();
  await db.schema.alterTable('proposals').dropColumn('run_attempts').execute();
  await db.schema.alterTable('proposals').dropColumn('run_from_seq').execute();
  await db.schema.alterTable('proposals').dropColumn('lease_until').execute();
  await db.schema.alterTable('proposals').dropColumn('lease_token').execute();
  await db.schema.alterTable('audit_events').dropColumn('proposal_id').execute();
  await db.schema.alterTable('audit_events').dropColumn('operator').execute();
}
