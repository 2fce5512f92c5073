import type { Kysely } from 'kysely';

/**
 * Quorum policies, proposals and signed intents (docs/approvals.md):
 *
 * - approval_policies: a tenant's rules (channel_id '') and each channel's, as JSON, with a revision
 *   (the policy's ETag). A missing row is a policy with no rules.
 * - proposals: a held operation, its plan (JSON), the typed data its approvers sign, the admins whose
 *   intent counts (fixed when it is made), and its state. It moves from state to state only by an
 *   UPDATE … WHERE status = <the state it was read in>, so that of racing approvals on any number of
 *   instances exactly one runs it.
 * - proposal_approvals: one intent per admin per proposal (the primary key), whichever of its
 *   wallets signed; a wallet approves a proposal once too (unique).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('approval_policies')
    .addColumn('tenant_id', 'text', (col) => col.notNull().references('tenants.id'))
    .addColumn('channel_id', 'text', (col) => col.notNull())
    .addColumn('rules', 'text', (col) => col.notNull())
    .addColumn('revision', 'bigint', (col) => col.notNull())
    .addColumn('updated_at', 'bigint', (col) => col.notNull())
    .addColumn('updated_by', 'text', (col) => col.notNull())
    .addPrimaryKeyConstraint('approval_policies_pk', ['tenant_id', 'channel_id'])
    .execute();

  await db.schema
    .createTable('proposals')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('tenant_id', 'text', (col) => col.notNull().references('tenants.id'))
    .addColumn('channel_id', 'text')
    .addColumn('operation', 'text', (col) => col.notNull())
    .addColumn('status', 'text', (col) => col.notNull())
    .addColumn('proposed_by', 'text', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .addColumn('expires_at', 'bigint', (col) => col.notNull())
    .addColumn('required', 'integer', (col) => col.notNull())
    .addColumn('permission', 'text', (col) => col.notNull())
    .addColumn('plan', 'text', (col) => col.notNull())
    .addColumn('plan_etag', 'text', (col) => col.notNull())
    .addColumn('summary', 'text', (col) => col.notNull())
    .addColumn('typed_data', 'text', (col) => col.notNull())
    .addColumn('eligible_admin_ids', 'text', (col) => col.notNull())
    .addColumn('reason', 'text')
    .addColumn('result', 'text')
    .addColumn('finished_at', 'bigint')
    .execute();
  await db.schema.createIndex('proposals_tenant_idx').on('proposals').columns(['tenant_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('proposals_status_idx').on('proposals').columns(['tenant_id', 'status', 'created_at', 'id']).execute();

  await db.schema
    .createTable('proposal_approvals')
    .addColumn('proposal_id', 'text', (col) => col.notNull().references('proposals.id'))
    .addColumn('admin_id', 'text', (col) => col.notNull())
    .addColumn('wallet', 'text', (col) => col.notNull())
    .addColumn('signature', 'text', (col) => col.notNull())
    .addColumn('kind', 'text', (col) => col.notNull())
    .addColumn('approved_at', 'bigint', (col) => col.notNull())
    .addPrimaryKeyConstraint('proposal_approvals_pk', ['proposal_id', 'admin_id'])
    .addUniqueConstraint('proposal_approvals_wallet', ['proposal_id', 'wallet'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('proposal_approvals').execute();
  await db.schema.dropTable('proposals').execute();
  await db.schema.dropTable('approval_policies').execute();
}
