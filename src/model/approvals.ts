import type { AuditIntents } from './audit.ts';
import type { Page, PageRequest } from './paging.ts';

/** Quorum policies, proposals and their signed intents (docs/approvals.md). */

/** The operations a policy may hold until enough admins sign an intent for them. */
export const HELD_OPERATIONS = [
  'folder.restore',
  'channel.restore',
  'backup.delete',
  'backup.lock',
  'admin.create',
  'admin.change',
  'admin.remove',
  'invitation.create',
  'wallet.add',
  'policy.change',
  // Webhooks (docs/events.md): a stolen owner key alone must not be able to blind the tenant's SIEM.
  'webhook.create',
  'webhook.change',
  'webhook.delete',
  // A tenant's own off-site target (docs/offsite.md): it decides where the tenant's data goes.
  'offsite.change',
] as const;

export type HeldOperation = (typeof HELD_OPERATIONS)[number];

/** Operations that act on one channel: a channel's policy may hold them too. */
export const CHANNEL_OPERATIONS: readonly HeldOperation[] = [
  'folder.restore',
  'channel.restore',
  'backup.delete',
  'backup.lock',
  'policy.change',
];

/** The most approvals a rule may ask (the API's schema and the CLI's --rule check both). */
export const MAX_APPROVALS = 20;

/** "`operation` needs intents from `approvals` distinct admins holding `permission`." */
export interface PolicyRule {
  operation: HeldOperation;
  approvals: number;
  permission: string;
}

export interface Policy {
  tenantId: string;
  /** Null: the tenant's own policy. */
  channelId: string | null;
  rules: PolicyRule[];
  /** Raised by every change: the policy's ETag ("p3"). 0 for a policy never set. */
  revision: number;
  updatedAt: number | null;
  updatedBy: string | null;
}

export const PROPOSAL_STATUSES = ['pending', 'running', 'executed', 'failed', 'invalidated', 'withdrawn', 'expired'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** One admin's signed intent for a proposal. */
export interface Approval {
  adminId: string;
  wallet: string;
  signature: string;
  /** How the signature was checked: by recovery (a key) or by the wallet contract (EIP-1271). */
  kind: 'eoa' | 'contract';
  approvedAt: number;
}

export interface Proposal {
  id: string; // prp_…
  tenantId: string;
  channelId: string | null;
  operation: HeldOperation;
  status: ProposalStatus;
  proposedBy: string;
  createdAt: number;
  expiresAt: number;
  required: number;
  permission: string;
  /** What the operation will do, as data the service runs it from (held-operations.ts). */
  plan: Record<string, unknown>;
  planEtag: string;
  summary: string;
  /** The EIP-712 typed data every approver signs (intent-typed-data.ts), as published. */
  typedData: Record<string, unknown>;
  /** The admins whose intent counts: those holding the permission when the proposal was made. */
  eligibleAdminIds: string[];
  approvals: Approval[];
  reason: string | null;
  result: Record<string, unknown> | null;
  finishedAt: number | null;
  /** Its run, once it began (proposal-runs.ts); null before, and for a proposal that never ran. */
  run: ProposalRun | null;
}

/**
 * A proposal's run: whoever holds `leaseToken` runs it until `leaseUntil` (each step renews it);
 * `fromSeq` is the tenant's chain head when it began; `attempts` the takeovers so far. Rows a
 * release before migration 020 left running have no lease (null).
 */
export interface ProposalRun {
  leaseToken: string | null;
  leaseUntil: number | null;
  fromSeq: number | null;
  attempts: number;
}

export type NewProposal = Omit<Proposal, 'status' | 'approvals' | 'reason' | 'result' | 'finishedAt' | 'run'>;

export interface ProposalFilter {
  status?: ProposalStatus | undefined;
  /** What a sub-admin may see: proposals on these channels, and those on no channel. Undefined: all. */
  channelIds?: readonly string[] | undefined;
}

export interface ApprovalRecords {
  getPolicy(tenantId: string, channelId: string | null): Promise<Policy>;
  /** Every channel policy of the tenant with at least one rule, and the tenant's. */
  listPolicies(tenantId: string): Promise<Policy[]>;
  /** Replaces the rules; with `ifRevision`, only when the stored revision is that one (else PRECONDITION_FAILED). */
  putPolicy(tenantId: string, channelId: string | null, rules: PolicyRule[], by: string, now: number, ifRevision?: number): Promise<Policy>;
  createProposal(proposal: NewProposal): Promise<Proposal>;
  getProposal(tenantId: string, id: string): Promise<Proposal | undefined>;
  listProposals(tenantId: string, page: PageRequest, filter?: ProposalFilter): Promise<Page<Proposal>>;
  /** Adds the admin's approval; false when that admin (or that wallet) has one already. */
  addApproval(proposalId: string, approval: Approval): Promise<boolean>;
  /**
   * Moves a proposal from `from` to `to` (with its reason, result, finish time): false when it is no
   * longer in `from`. The one way a proposal changes state, so that of racing callers exactly one wins.
   */
  moveProposal(
    id: string,
    from: ProposalStatus,
    to: ProposalStatus,
    outcome?: {
      reason?: string | null;
      result?: Record<string, unknown> | null;
      finishedAt?: number | null;
      /** Moving to running: the run's lease and the chain head it begins at. */
      run?: { leaseToken: string; leaseUntil: number; fromSeq: number };
    },
    /** Only while the run's lease is this token's (the end of a run is its lease holder's to write). */
    leaseToken?: string,
  ): Promise<boolean>;
  /** Up to `limit` running proposals whose lease lapsed before `now` (or that have none), the longest lapsed first. */
  lapsedRuns(now: number, limit: number): Promise<{ id: string; tenantId: string }[]>;
  /**
   * Takes over a lapsed run: its lease becomes `next` if it is still `running` under the token
   * `lapsed` and still lapsed at `now`, and its attempts count one more. Of racing instances, one wins.
   */
  takeOverRun(id: string, lapsed: string | null, next: { leaseToken: string; leaseUntil: number }, now: number): Promise<boolean>;
  /**
   * Replaces an executed proposal's result `was` (as read) by `now`: false when it is no longer `was`,
   * so that of racing readers exactly one takes what the result held once.
   */
  replaceProposalResult(id: string, was: Record<string, unknown>, now: Record<string, unknown>): Promise<boolean>;
}

/** The intents that let a held operation run, as its audit entry keeps them (docs/audit-chain.md, "Intents"). */
export type ProposalIntents = AuditIntents;
