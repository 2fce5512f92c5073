import type { Logger } from '../logging/logger.ts';
import { type Admin, stateOf } from '../model/admins.ts';
import type { AdministrationAction, AuditIntents, AuditLog } from '../model/audit.ts';

/** What an administration event records of an admin, before and after a change. */
export function adminSnapshot(admin: Admin): Record<string, unknown> {
  return {
    id: admin.id,
    displayName: admin.displayName,
    status: stateOf(admin),
    ownerAdminId: admin.ownerAdminId,
    permissions: admin.permissions,
    channelIds: admin.channelIds,
    wallets: admin.wallets,
  };
}

export interface AdministrationEvent {
  tenantId: string;
  /** Who acted; null for the service itself. */
  adminId: string | null;
  action: AdministrationAction;
  targetAdminId?: string | null;
  channelId?: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** A held operation's signed intents (docs/approvals.md), kept with the entry of what they made run. */
  intents?: AuditIntents | undefined;
}

/**
 * Writes a tenant's administration events. Like the file events, a failure to write one is logged,
 * not thrown: the change it describes has happened, and failing the request would invite a retry
 * that repeats it.
 */
export class AdministrationAudit {
  constructor(
    private readonly log: AuditLog,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async record(event: AdministrationEvent): Promise<void> {
    try {
      await this.log.appendAudit({
        tenantId: event.tenantId,
        channelId: event.channelId ?? null,
        adminId: event.adminId,
        action: event.action,
        folder: null,
        filename: null,
        backupTimestamp: null,
        versionId: null,
        at: null,
        result: 'ok',
        code: null,
        sha256: null,
        createdAt: this.now(),
        operationId: null,
        operation: null,
        targetAdminId: event.targetAdminId ?? null,
        change: { before: event.before, after: event.after },
        ...(event.intents === undefined ? {} : { intents: event.intents }),
      });
    } catch (error) {
      this.logger.error(
        { err: error, action: event.action, tenantId: event.tenantId },
        'could not write an administration event to the audit log',
      );
    }
  }
}
