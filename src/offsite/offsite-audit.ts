import type { AuditResult, NewAuditEvent } from '../model/audit.ts';

/**
 * An off-site event's audit entry (docs/offsite.md): a check or a drill of the copy in the
 * service-wide chain, a rebuild to an earlier instant in each chain it stopped. No admin acts: the
 * service itself (a check) or the operator by its label (a drill, a rebuild).
 */
export function offsiteEntry(
  chain: string,
  action: 'offsite.check' | 'offsite.drill' | 'offsite.rebuild',
  result: AuditResult,
  after: Record<string, unknown>,
  at: number,
  operator: string | null = null,
): NewAuditEvent {
  return {
    tenantId: chain,
    channelId: null,
    folder: null,
    filename: null,
    backupTimestamp: null,
    versionId: null,
    at: null,
    sha256: null,
    createdAt: at,
    operationId: null,
    operation: null,
    adminId: null,
    operator,
    proposalId: null,
    action,
    result,
    code: result === 'ok' ? null : 'OFFSITE_COPY_BROKEN',
    targetAdminId: null,
    change: { before: null, after },
  };
}
