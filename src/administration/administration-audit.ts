import { isAppError } from '../errors/app-error.ts';
import type { Logger } from '../logging/logger.ts';
import { actorMembers, type Who } from '../model/actors.ts';
import { type Admin, stateOf } from '../model/admins.ts';
import type { AdministrationAction, AuditIntents, AuditLog, NewAuditEvent } from '../model/audit.ts';
import { RefusalAllowance } from './refusal-allowance.ts';

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

/** Who acted (an admin's id, or with null the operator or the service itself), and the run it is a step of. */
export interface AdministrationEvent extends Who {
  tenantId: string;
  action: AdministrationAction;
  targetAdminId?: string | null;
  channelId?: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  /** A held operation's signed intents (docs/approvals.md), kept with the entry of what they made run. */
  intents?: AuditIntents | undefined;
}

/** What an administration refusal names: who was refused what, on which admin or channel. */
export interface AdministrationRefusal {
  tenantId: string;
  adminId: string;
  action: AdministrationAction;
  targetAdminId?: string | null | undefined;
  channelId?: string | null | undefined;
}

/**
 * A tenant's administration events. A change's entry is appended by the change's own transaction
 * (`append` into the transaction's log: MetadataStore.atomically), so that the change and its entry
 * commit together or neither does. A refusal is recorded after the fact, at most a few a minute
 * per admin (RefusalAllowance): refusals cost the refused nothing, and must not flood the chain.
 */
export class AdministrationAudit {
  private readonly allowance: RefusalAllowance;

  constructor(
    private readonly log: AuditLog,
    /** Where a refusal that could not be recorded is reported; only the service records refusals. */
    private readonly logger: Logger = STDERR,
    private readonly now: () => number = Date.now,
    allowance?: RefusalAllowance,
  ) {
    this.allowance = allowance ?? new RefusalAllowance(now);
  }

  /** The entry of `event`, for its change's transaction to append. */
  entry(event: AdministrationEvent): NewAuditEvent {
    const createdAt = this.now();
    return {
      ...base(event.tenantId, event.channelId ?? null, createdAt),
      ...actorMembers(event, createdAt),
      action: event.action,
      result: 'ok',
      code: null,
      targetAdminId: event.targetAdminId ?? null,
      change: { before: event.before, after: event.after },
      ...(event.intents === undefined ? {} : { intents: event.intents }),
    };
  }

  /** Appends `event` to `log`: the catalog of the transaction that makes the change (throws when it cannot, rolling the change back). */
  async append(log: Pick<AuditLog, 'appendAudit'>, event: AdministrationEvent): Promise<void> {
    await log.appendAudit(this.entry(event));
  }

  /**
   * Records that `refusal` was refused with `error` (a 4xx: refused; otherwise failed), unless the
   * admin has used up its allowance, which the next recorded refusal then says. Logged, not thrown:
   * the refusal's own answer stands either way.
   */
  async refused(refusal: AdministrationRefusal, error: unknown): Promise<void> {
    const allowed = this.allowance.take(refusal.adminId);
    if (allowed === undefined) return;
    const createdAt = this.now();
    const event: NewAuditEvent = {
      ...base(refusal.tenantId, refusal.channelId ?? null, createdAt),
      adminId: refusal.adminId,
      action: refusal.action,
      result: isAppError(error) && error.status < 500 ? 'refused' : 'failed',
      code: isAppError(error) ? error.code : 'INTERNAL_ERROR',
      targetAdminId: refusal.targetAdminId ?? null,
      change: allowed.notRecorded > 0 ? { before: null, after: { refusalsNotRecorded: allowed.notRecorded } } : null,
    };
    try {
      await this.log.appendAudit(event);
    } catch (err) {
      this.logger.error({ err, action: refusal.action, tenantId: refusal.tenantId }, 'could not write a refusal to the audit log');
    }
  }
}

const STDERR: Logger = {
  warn: (details, message) => console.error(message, details),
  error: (details, message) => console.error(message, details),
};

/** The members every administration entry shares: no file, no backup, no restore. */
function base(tenantId: string, channelId: string | null, createdAt: number) {
  return {
    tenantId,
    channelId,
    folder: null,
    filename: null,
    backupTimestamp: null,
    versionId: null,
    at: null,
    sha256: null,
    createdAt,
    operationId: null,
    operation: null,
  };
}
