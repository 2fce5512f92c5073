import { type Kysely, type Selectable, sql } from 'kysely';
import { AppError } from '../errors/app-error.ts';
import type { Approval, ApprovalRecords, HeldOperation, Policy, PolicyRule, Proposal, ProposalStatus } from '../model/approvals.ts';
import { decodeCursor, pageFrom } from './page-cursor.ts';
import type { ApprovalPoliciesTable, Database, ProposalApprovalsTable, ProposalsTable } from './schema.ts';

type Db = Kysely<Database>;

/** The tenant's own policy is stored under this channel id (the key's column is NOT NULL). */
const TENANT_POLICY = '';

/** Policies, proposals and their approvals (model/approvals.ts, migration 019). */
export function approvalRecords(db: Db): ApprovalRecords {
  const records: ApprovalRecords = {
    async getPolicy(tenantId, channelId) {
      const row = await db
        .selectFrom('approval_policies')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('channel_id', '=', channelId ?? TENANT_POLICY)
        .executeTakeFirst();
      return row === undefined ? emptyPolicy(tenantId, channelId) : toPolicy(row);
    },

    async listPolicies(tenantId) {
      const rows = await db.selectFrom('approval_policies').selectAll().where('tenant_id', '=', tenantId).execute();
      return rows.map(toPolicy).filter((p) => p.rules.length > 0 || p.channelId === null);
    },

    async putPolicy(tenantId, channelId, rules, by, now, ifRevision) {
      const key = channelId ?? TENANT_POLICY;
      const current = await records.getPolicy(tenantId, channelId);
      if (ifRevision !== undefined && current.revision !== ifRevision) throw policyChanged();
      const json = JSON.stringify(rules);
      if (current.revision === 0) {
        const inserted = await db
          .insertInto('approval_policies')
          .values({ tenant_id: tenantId, channel_id: key, rules: json, revision: 1, updated_at: now, updated_by: by })
          .onConflict((oc) => oc.columns(['tenant_id', 'channel_id']).doNothing())
          .executeTakeFirst();
        // Someone else set it first: this write was made against a policy that is no longer the one read.
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) throw policyChanged();
      } else {
        const updated = await db
          .updateTable('approval_policies')
          .set({ rules: json, revision: sql`revision + 1`, updated_at: now, updated_by: by })
          .where('tenant_id', '=', tenantId)
          .where('channel_id', '=', key)
          .where('revision', '=', current.revision)
          .executeTakeFirst();
        if (Number(updated.numUpdatedRows) === 0) throw policyChanged();
      }
      return records.getPolicy(tenantId, channelId);
    },

    async createProposal(proposal) {
      await db
        .insertInto('proposals')
        .values({
          id: proposal.id,
          tenant_id: proposal.tenantId,
          channel_id: proposal.channelId,
          operation: proposal.operation,
          status: 'pending',
          proposed_by: proposal.proposedBy,
          created_at: proposal.createdAt,
          expires_at: proposal.expiresAt,
          required: proposal.required,
          permission: proposal.permission,
          plan: JSON.stringify(proposal.plan),
          plan_etag: proposal.planEtag,
          summary: proposal.summary,
          typed_data: JSON.stringify(proposal.typedData),
          eligible_admin_ids: JSON.stringify(proposal.eligibleAdminIds),
          lease_token: null,
          lease_until: null,
          run_from_seq: null,
          run_attempts: 0,
        })
        .execute();
      return { ...proposal, status: 'pending', approvals: [], reason: null, result: null, finishedAt: null, run: null };
    },

    async getProposal(tenantId, id) {
      const row = await db.selectFrom('proposals').selectAll().where('id', '=', id).where('tenant_id', '=', tenantId).executeTakeFirst();
      if (row === undefined) return undefined;
      const [proposal] = await withApprovals([row]);
      return proposal;
    },

    async listProposals(tenantId, page, filter = {}) {
      let query = db.selectFrom('proposals').selectAll().where('tenant_id', '=', tenantId);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      const channels = filter.channelIds;
      if (channels !== undefined) {
        query = query.where((eb) =>
          eb.or([eb('channel_id', 'is', null), eb('channel_id', 'in', channels.length > 0 ? [...channels] : ['-'])]),
        );
      }
      if (page.cursor !== undefined) {
        const [createdAt, id] = decodeCursor(page.cursor, ['number', 'string']);
        query = query.where(sql<boolean>`(created_at, id) < (${createdAt}, ${id})`);
      }
      const rows = await query
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit + 1)
        .execute();
      return pageFrom(await withApprovals(rows), page.limit, (p) => [p.createdAt, p.id]);
    },

    async addApproval(proposalId, approval) {
      // Neither key may repeat: one intent per admin, and per wallet, per proposal; a repeat inserts nothing.
      const inserted = await db
        .insertInto('proposal_approvals')
        .values({
          proposal_id: proposalId,
          admin_id: approval.adminId,
          wallet: approval.wallet,
          signature: approval.signature,
          kind: approval.kind,
          approved_at: approval.approvedAt,
        })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async moveProposal(id, from, to, outcome = {}, leaseToken = undefined) {
      const updated = await db
        .updateTable('proposals')
        .set({
          status: to,
          ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
          ...(outcome.result !== undefined ? { result: outcome.result === null ? null : JSON.stringify(outcome.result) } : {}),
          ...(outcome.finishedAt !== undefined ? { finished_at: outcome.finishedAt } : {}),
          ...(outcome.run !== undefined
            ? { lease_token: outcome.run.leaseToken, lease_until: outcome.run.leaseUntil, run_from_seq: outcome.run.fromSeq }
            : {}),
        })
        .where('id', '=', id)
        .where('status', '=', from)
        // A run's end is its lease holder's to write: a run taken over meanwhile is the new holder's.
        .where((eb) => (leaseToken === undefined ? eb.lit(true) : eb('lease_token', '=', leaseToken)))
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) > 0;
    },

    async lapsedRuns(now, limit) {
      const rows = await db
        .selectFrom('proposals')
        .select(['id', 'tenant_id'])
        .where('status', '=', 'running')
        // No lease at all: a run a release before migration 020 left behind.
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .orderBy('lease_until')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ id: row.id, tenantId: row.tenant_id }));
    },

    async takeOverRun(id, lapsed, next, now) {
      const updated = await db
        .updateTable('proposals')
        .set({ lease_token: next.leaseToken, lease_until: next.leaseUntil, run_attempts: sql`run_attempts + 1` })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .where((eb) => (lapsed === null ? eb('lease_token', 'is', null) : eb('lease_token', '=', lapsed)))
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) > 0;
    },

    async replaceProposalResult(id, was, now) {
      // The text as moveProposal wrote it (JSON.stringify keeps the members' order): compared whole.
      const updated = await db
        .updateTable('proposals')
        .set({ result: JSON.stringify(now) })
        .where('id', '=', id)
        .where('result', '=', JSON.stringify(was))
        .executeTakeFirst();
      return Number(updated.numUpdatedRows) > 0;
    },
  };

  async function withApprovals(rows: Selectable<ProposalsTable>[]): Promise<Proposal[]> {
    if (rows.length === 0) return [];
    const approvals = await db
      .selectFrom('proposal_approvals')
      .selectAll()
      .where(
        'proposal_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('approved_at')
      .orderBy('admin_id')
      .execute();
    return rows.map((row) =>
      toProposal(
        row,
        approvals.filter((a) => a.proposal_id === row.id),
      ),
    );
  }

  return records;
}

function policyChanged(): AppError {
  return new AppError('PRECONDITION_FAILED', 'The policy was changed since it was read; read it again');
}

function emptyPolicy(tenantId: string, channelId: string | null): Policy {
  return { tenantId, channelId, rules: [], revision: 0, updatedAt: null, updatedBy: null };
}

function toPolicy(row: Selectable<ApprovalPoliciesTable>): Policy {
  return {
    tenantId: row.tenant_id,
    channelId: row.channel_id === TENANT_POLICY ? null : row.channel_id,
    rules: JSON.parse(row.rules) as PolicyRule[],
    revision: Number(row.revision),
    updatedAt: Number(row.updated_at),
    updatedBy: row.updated_by,
  };
}

function toApproval(row: Selectable<ProposalApprovalsTable>): Approval {
  return {
    adminId: row.admin_id,
    wallet: row.wallet,
    signature: row.signature,
    kind: row.kind === 'contract' ? 'contract' : 'eoa',
    approvedAt: Number(row.approved_at),
  };
}

function toProposal(row: Selectable<ProposalsTable>, approvals: Selectable<ProposalApprovalsTable>[]): Proposal {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    channelId: row.channel_id,
    operation: row.operation as HeldOperation,
    status: row.status as ProposalStatus,
    proposedBy: row.proposed_by,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    required: Number(row.required),
    permission: row.permission,
    plan: JSON.parse(row.plan) as Record<string, unknown>,
    planEtag: row.plan_etag,
    summary: row.summary,
    typedData: JSON.parse(row.typed_data) as Record<string, unknown>,
    eligibleAdminIds: JSON.parse(row.eligible_admin_ids) as string[],
    approvals: approvals.map(toApproval),
    reason: row.reason,
    result: row.result === null ? null : (JSON.parse(row.result) as Record<string, unknown>),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    run:
      row.status !== 'running' && row.run_from_seq == null
        ? null
        : {
            leaseToken: row.lease_token ?? null,
            leaseUntil: row.lease_until == null ? null : Number(row.lease_until),
            fromSeq: row.run_from_seq == null ? null : Number(row.run_from_seq),
            attempts: Number(row.run_attempts ?? 0),
          },
  };
}
