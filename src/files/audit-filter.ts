import { AppError } from '../errors/app-error.ts';
import { AUDIT_ACTIONS, AUDIT_RESULTS, type AuditFilter } from '../model/audit.ts';

/** The audit log records names cut to 255 characters (requestedDetails), so no longer one can match. */
export const MAX_AUDIT_NAME_LENGTH = 255;
/** Admin and operation ids are a prefix and 26 characters; the bound only keeps nonsense out of the query. */
export const MAX_AUDIT_ID_LENGTH = 100;

/** A filter as a caller gave it: each field absent, or a value still to be checked. */
export interface RequestedAuditFilter {
  action?: string | undefined;
  adminId?: string | undefined;
  folder?: string | undefined;
  filename?: string | undefined;
  result?: string | undefined;
  operationId?: string | undefined;
}

/**
 * Checks a requested audit filter; a value that no event can hold is refused (VALIDATION_FAILED,
 * naming the field) rather than answered with an empty page, which would look like "nothing happened".
 */
export function auditFilterOf(requested: RequestedAuditFilter): AuditFilter {
  return {
    action: oneOf('action', requested.action, AUDIT_ACTIONS),
    adminId: text('adminId', requested.adminId, MAX_AUDIT_ID_LENGTH),
    folder: text('folder', requested.folder, MAX_AUDIT_NAME_LENGTH),
    filename: text('filename', requested.filename, MAX_AUDIT_NAME_LENGTH),
    result: oneOf('result', requested.result, AUDIT_RESULTS),
    operationId: text('operationId', requested.operationId, MAX_AUDIT_ID_LENGTH),
  };
}

function oneOf<const T extends string>(field: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new AppError('VALIDATION_FAILED', `${field} must be one of ${allowed.join(', ')}; got ${JSON.stringify(value.slice(0, 40))}`);
  }
  return value as T;
}

function text(field: string, value: string | undefined, maxLength: number): string | undefined {
  if (value === undefined) return undefined;
  if (value === '') throw new AppError('VALIDATION_FAILED', `${field} must not be empty; leave it out to list every ${field}`);
  if (value.length > maxLength) throw new AppError('VALIDATION_FAILED', `${field} must be at most ${maxLength} characters`);
  // The log stores control characters as U+FFFD (AuditTrail.record), and PostgreSQL text cannot hold NUL.
  if (/\p{Cc}/u.test(value)) throw new AppError('VALIDATION_FAILED', `${field} must not contain control characters`);
  return value;
}
