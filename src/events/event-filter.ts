import { AppError } from '../errors/app-error.ts';
import { AUDIT_RESULTS, type AuditEvent, type AuditResult, TENANT_AUDIT_ACTIONS } from '../model/audit.ts';

/**
 * Which events a destination takes (docs/events.md, "Filters"). Every member narrows: an event
 * passes when it matches each member that is set. A type is an audit action (`upload`,
 * `backup.delete`) or a family, `prefix.*`, which takes the action named `prefix` and every action
 * below it (`backup.*`: backup, backup.delete, backup.lock); `channels` takes only the events of
 * those channels (so none of the tenant's own, such as admin.update); `folders` only file events
 * in those folders; `results` the outcomes to carry, `ok` unless a security receiver asks for
 * refusals and failures too.
 */
export interface EventFilter {
  types: readonly string[];
  channels: readonly string[];
  folders: readonly string[];
  results: readonly AuditResult[];
}

/** What a sub-admin's webhook may carry: the tenant audit view's rules (its channels, and the admins at or below it). */
export interface EventVisibility {
  channelIds: ReadonlySet<string>;
  adminIds: ReadonlySet<string>;
}

/** Every type an event may have: the audit log's actions. */
export const EVENT_TYPES: readonly string[] = TENANT_AUDIT_ACTIONS;

export const MAX_FILTER_ITEMS = 100;

/** VALIDATION_FAILED for a type nobody could ever receive: a typo must not make a silent webhook. */
export function checkTypes(types: readonly string[]): string[] {
  for (const type of types) {
    const family = type.endsWith('.*') ? type.slice(0, -2) : undefined;
    const known =
      family === undefined
        ? EVENT_TYPES.includes(type)
        : family !== '' && EVENT_TYPES.some((t) => t === family || t.startsWith(`${family}.`));
    if (!known) {
      throw new AppError(
        'VALIDATION_FAILED',
        `types names ${JSON.stringify(type)}, which is no event type: use an audit action (${EVENT_TYPES.slice(0, 6).join(', ')}, …; GET /api/openapi.json lists them under webhooks) or a family such as backup.*`,
      );
    }
  }
  return [...new Set(types)];
}

export function checkResults(results: readonly string[]): AuditResult[] {
  for (const result of results) {
    if (!(AUDIT_RESULTS as readonly string[]).includes(result)) {
      throw new AppError('VALIDATION_FAILED', `results names ${JSON.stringify(result)}: each must be one of ${AUDIT_RESULTS.join(', ')}`);
    }
  }
  if (results.length === 0) throw new AppError('VALIDATION_FAILED', 'results must name at least one of ok, refused, failed');
  return [...new Set(results)] as AuditResult[];
}

export function typeMatches(types: readonly string[], action: string): boolean {
  if (types.length === 0) return true;
  for (const type of types) {
    if (type === action) return true;
    if (type.endsWith('.*')) {
      const family = type.slice(0, -2);
      if (action === family || action.startsWith(`${family}.`)) return true;
    }
  }
  return false;
}

export function accepts(filter: EventFilter, event: AuditEvent, visibility?: EventVisibility): boolean {
  if (!filter.results.includes(event.result)) return false;
  if (!typeMatches(filter.types, event.action)) return false;
  if (filter.channels.length > 0 && (event.channelId === null || !filter.channels.includes(event.channelId))) return false;
  if (filter.folders.length > 0 && (event.folder === null || !filter.folders.includes(event.folder))) return false;
  if (visibility !== undefined) {
    const seen =
      (event.channelId !== null && visibility.channelIds.has(event.channelId)) ||
      (event.targetAdminId !== null && visibility.adminIds.has(event.targetAdminId));
    if (!seen) return false;
  }
  return true;
}
