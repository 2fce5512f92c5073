/**
 * Policies and proposals as docs/approvals.md gives them. The console's own until the typed client
 * (src/client) has them.
 */
export type Operation =
  | 'folder.restore'
  | 'channel.restore'
  | 'backup.delete'
  | 'backup.lock'
  | 'admin.create'
  | 'admin.change'
  | 'admin.remove'
  | 'invitation.create'
  | 'wallet.add'
  | 'policy.change';

export const OPERATIONS: readonly Operation[] = [
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
];

/** "channel restore: 2 of the admins with files:restore". */
export interface PolicyRule {
  operation: Operation;
  approvals: number;
  permission: string;
}

export interface Policy {
  rules: PolicyRule[];
  /** Raised by every change; the ETag is "p{revision}". */
  revision: number;
  etag?: string;
}

/** A channel's own rules, and the tenant's that apply to it too (the stricter wins). */
export interface ChannelPolicy extends Policy {
  tenantRules?: PolicyRule[];
}

export type ProposalStatus = 'pending' | 'executed' | 'failed' | 'invalidated' | 'withdrawn' | 'expired';

export interface Approval {
  adminId: string;
  wallet: string;
  kind: 'eoa' | 'contract';
  approvedAt: string;
  counts: boolean;
}

/** EIP-712 typed data, as the service publishes it: signed as it is, never built here. */
export interface TypedData {
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

export interface Proposal {
  id: string;
  tenantId: string;
  channelId: string | null;
  operation: Operation;
  status: ProposalStatus;
  proposedBy: string;
  createdAt: string;
  expiresAt: string;
  required: number;
  permission: string;
  plan: unknown;
  planEtag: string;
  summary: string;
  typedData: TypedData;
  approvals: Approval[];
  approvalsCounted: number;
  eligibleAdminIds: string[];
  reason: string | null;
  result: unknown;
  /** When it left pending; absent while pending. */
  finishedAt?: string;
}
