import type { Page, PageRequest } from './paging.ts';

/** The audit log: what was asked of a channel, by whom, and what came of it. */

/** What is done to a channel's files: the actions of a channel's log. */
export const AUDIT_ACTIONS = ['upload', 'delete', 'backup', 'restore', 'backup.delete', 'backup.lock', 'retention', 'archive'] as const;

/** What is done to a tenant's admins, wallets, invitations and channels (docs/administration.md). */
export const ADMINISTRATION_ACTIONS = [
  'admin.create',
  'admin.update',
  'admin.remove',
  // Every message the admin signed until then ended (an operator's `admin logout`, or the admin's own logout?all=true).
  'admin.sign-out',
  'wallet.add',
  'wallet.remove',
  'invitation.create',
  'invitation.revoke',
  'invitation.accept',
  'channel.create',
  'channel.update',
  'channel.link',
  'channel.unlink',
  // Approvals (docs/approvals.md): a policy changed, and each step of a proposal.
  'policy.change',
  'proposal.create',
  'proposal.approve',
  'proposal.withdraw',
  'proposal.close',
  'proposal.execute',
  // The operator's CLI: a tenant's features changed (its own chain), a tenant created (the service-wide chain).
  'tenant.update',
  'tenant.create',
  // Off-site copies (docs/offsite.md): a rebuild to an earlier instant (each tenant's chain says where
  // it stopped), and a scheduled check or a drill of the copy (the service-wide chain).
  'offsite.rebuild',
  'offsite.check',
  'offsite.drill',
  // Webhooks (docs/events.md): made, changed (its URL, filters, pause, a rotated secret), deleted.
  'webhook.create',
  'webhook.change',
  'webhook.delete',
  // A tenant's own off-site target (docs/offsite.md): set, changed or removed (never its secret).
  'offsite.change',
] as const;

/**
 * What the log records of itself (docs/audit-chain.md): `audit.chain-start`, the first entry of a
 * tenant's chain when the upgrade to a chained log found entries written before it.
 */
export const CHAIN_ACTIONS = ['audit.chain-start'] as const;

export type FileAuditAction = (typeof AUDIT_ACTIONS)[number];
export type AdministrationAction = (typeof ADMINISTRATION_ACTIONS)[number];
export type ChainAction = (typeof CHAIN_ACTIONS)[number];
export type AuditAction = FileAuditAction | AdministrationAction | ChainAction;

/**
 * The head of the service-wide chain: the entries of changes that concern no tenant yet (a tenant's
 * creation, by the operator's CLI or the demo seed). No tenant can take it: tenant ids begin t_.
 */
export const SERVICE_CHAIN = 'service';

/** Every action of a tenant's log. */
export const TENANT_AUDIT_ACTIONS: readonly AuditAction[] = [...AUDIT_ACTIONS, ...ADMINISTRATION_ACTIONS, ...CHAIN_ACTIONS];

export const AUDIT_RESULTS = ['ok', 'refused', 'failed'] as const;

export type AuditResult = (typeof AUDIT_RESULTS)[number];

export interface AuditEvent {
  id: string; // aud_…
  tenantId: string;
  /** Null for an administration event that concerns no one channel (an admin, an invitation). */
  channelId: string | null;
  adminId: string | null;
  action: AuditAction;
  folder: string | null;
  filename: string | null;
  backupTimestamp: string | null;
  versionId: string | null;
  /** A restore to an instant: the instant asked for (RFC 3339); versionId names what it resolved to. */
  at: string | null;
  result: AuditResult;
  /** AppError code when refused or failed. */
  code: string | null;
  sha256: string | null;
  createdAt: number;
  /**
   * The operation the event belongs to (op_…): a folder or channel restore's own event, its safety
   * backup's and those of the files it restored or deleted carry its id. Null for everything else.
   */
  operationId: string | null;
  /** A folder or channel restore's own event: what it was asked and what it did; null on every other event. */
  operation: AuditOperation | null;
  /** An administration event: the admin acted upon (created, changed, linked, removed); null otherwise. */
  targetAdminId: string | null;
  /** An administration event: the record before and after (null before a creation, after a removal). */
  change: AuditChange | null;
  /** The signed intents that made a held operation run (docs/audit-chain.md); null on every other event. */
  intents: AuditIntents | null;
  /**
   * Who acted when no admin did (adminId null): the operator's label (OPERATOR_LABEL) for the
   * operator's local CLI; null for the service itself (the schedule, retention, the demo seed) and
   * for every admin's event.
   */
  operator: string | null;
  /** The proposal (prp_…) whose run made this event: every step of a held operation carries it; null otherwise. */
  proposalId: string | null;
}

/**
 * The intents stored with the event they caused: the proposal, the quorum its policy asked for, the
 * EIP-712 typed data every approver signed, and each approval. Kept whole so that a verifier
 * recomputes each signature from the export alone (docs/audit-chain.md, "Intents").
 */
export interface AuditIntents {
  proposalId: string;
  operation: string;
  /** Distinct admins whose approval the policy asked for. */
  required: number;
  /** The permission an approver had to hold. */
  permission: string;
  typedData: TypedIntent;
  approvals: IntentApproval[];
}

/** EIP-712 typed data as eth_signTypedData_v4 takes it; numbers beyond 2^53 are written as decimal strings. */
export interface TypedIntent {
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

export interface IntentApproval {
  adminId: string;
  wallet: string;
  signature: string;
  /** An EOA's signature is recovered offline; a contract wallet's (EIP-1271) needs a chain to ask. */
  kind: 'eoa' | 'contract';
}

export interface AuditChange {
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

/** A folder or channel restore as its audit event records it (migration 009). */
export interface AuditOperation {
  /** A folder's restore (the event's folder names it) or the whole channel's. */
  scope: 'folder' | 'channel';
  /** The instant restored, as asked (RFC 3339); null when a backup was named (the event's backupTimestamp). */
  at: string | null;
  delete: boolean;
  dryRun: boolean;
  /** The backup taken before the first change; null when none was (a dry run, nothing to change, refused). */
  safetyBackup: string | null;
  /** Files done: per action, those the plan left alone (unchanged), and those whose restore or delete failed. */
  counts: { replaced: number; created: number; deleted: number; unchanged: number; failed: number };
}

/** An event to append; a channel's file events leave the administration members out. */
export type NewAuditEvent = Omit<AuditEvent, 'id' | 'targetAdminId' | 'change' | 'intents' | 'operator' | 'proposalId'> & {
  targetAdminId?: string | null | undefined;
  change?: AuditChange | null | undefined;
  intents?: AuditIntents | null | undefined;
  operator?: string | null | undefined;
  proposalId?: string | null | undefined;
  /**
   * Not stored: the lease of the held operation's run this event is a step of (proposalId names
   * it). The append renews it in the step's transaction, and refuses the step once another
   * instance has taken the run over.
   */
  lease?: { token: string; until: number } | undefined;
};

/** Which events of a channel's audit log to list: every given field must match exactly (AND). */
export interface AuditFilter {
  action?: AuditAction | undefined;
  adminId?: string | undefined;
  folder?: string | undefined;
  filename?: string | undefined;
  result?: AuditResult | undefined;
  operationId?: string | undefined;
}

/** Which events of a tenant's audit log to list: a channel's filter, and the tenant's own. */
export interface TenantAuditFilter extends Omit<AuditFilter, 'action'> {
  action?: AuditAction | undefined;
  channelId?: string | undefined;
  targetAdminId?: string | undefined;
  /**
   * What a sub-admin may see: the events of these channels, and those acting on these admins
   * (itself and the admins below it). Undefined: the whole tenant (an owner).
   */
  visibleTo?: { channelIds: readonly string[]; adminIds: readonly string[] } | undefined;
}

/** A tenant's chain as it stands: its last entry's seq and hash (seq 0 and the zero hash before any). */
export interface AuditHead {
  tenantId: string;
  seq: number;
  hash: string;
  /** When the last entry was appended; null before any. */
  at: number | null;
}

/** An event with its place in its tenant's chain (docs/audit-chain.md). */
export interface ChainedAuditEvent {
  event: AuditEvent;
  seq: number;
  prevHash: string;
  hash: string;
}

/** A channel's audit log, newest first. */
export interface AuditLog {
  /**
   * Appends to the event's tenant chain. Inside a caller's transaction (a Kysely Transaction store)
   * it joins that transaction, so the entry and the change it records commit together.
   */
  appendAudit(event: NewAuditEvent): Promise<AuditEvent>;
  /** The tenant's chain head. */
  auditHead(tenantId: string): Promise<AuditHead>;
  /** Up to `limit` entries of the tenant's chain after seq `afterSeq`, oldest first. */
  chainedAudit(tenantId: string, afterSeq: number, limit: number): Promise<ChainedAuditEvent[]>;
  /** Newest first; only the events matching every field of `filter`. */
  listAudit(channelId: string, page: PageRequest, filter?: AuditFilter): Promise<Page<AuditEvent>>;
  /** A tenant's whole log (its channels' events and its administration events), newest first. */
  listTenantAudit(tenantId: string, page: PageRequest, filter?: TenantAuditFilter): Promise<Page<AuditEvent>>;
}
