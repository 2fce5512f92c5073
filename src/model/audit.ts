import type { Page, PageRequest } from './paging.ts';

/** The audit log: what was asked of a channel, by whom, and what came of it. */

export const AUDIT_ACTIONS = ['upload', 'delete', 'backup', 'restore'] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_RESULTS = ['ok', 'refused', 'failed'] as const;

export type AuditResult = (typeof AUDIT_RESULTS)[number];

export interface AuditEvent {
  id: string; // aud_…
  tenantId: string;
  channelId: string;
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

export type NewAuditEvent = Omit<AuditEvent, 'id'>;

/** Which events of a channel's audit log to list: every given field must match exactly (AND). */
export interface AuditFilter {
  action?: AuditAction | undefined;
  adminId?: string | undefined;
  folder?: string | undefined;
  filename?: string | undefined;
  result?: AuditResult | undefined;
  operationId?: string | undefined;
}

/** A channel's audit log, newest first. */
export interface AuditLog {
  appendAudit(event: NewAuditEvent): Promise<AuditEvent>;
  /** Newest first; only the events matching every field of `filter`. */
  listAudit(channelId: string, page: PageRequest, filter?: AuditFilter): Promise<Page<AuditEvent>>;
}
