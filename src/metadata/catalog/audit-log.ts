import { type Kysely, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import type { AuditEvent, AuditFilter, AuditLog, NewAuditEvent } from '../../model/audit.ts';
import type { Page, PageRequest } from '../../model/paging.ts';
import type { LegacySpellings } from '../legacy-spellings.ts';
import { decodeCursor, pageFrom } from '../page-cursor.ts';
import type { AuditEventsTable, Database } from '../schema.ts';
import { appendChained, chainPage, readHead } from './audit-chain-records.ts';
import { toAuditEvent } from './file-catalog-rows.ts';

type Db = Kysely<Database>;

/** A value no channel or admin id takes: an empty "in" list, which SQL does not allow, written as one. */
const NO_CHANNEL_MATCH = '-';

/**
 * Keyset condition "(created_at, id) comes before the cursor's" for newest-first lists. Row-value
 * comparison means the same on both engines (SQLite has it since 3.15).
 */
function olderThan(cursor: string | undefined) {
  if (cursor === undefined) return sql<boolean>`true`;
  const [createdAt, id] = decodeCursor(cursor, ['number', 'string']);
  return sql<boolean>`(created_at, id) < (${createdAt}, ${id})`;
}

type AuditQuery = SelectQueryBuilder<Database, 'audit_events', Selectable<AuditEventsTable>>;

/** One page of the events `query` selects, newest first, from the cursor on: every listing's last step. */
async function newestFirst(query: AuditQuery, page: PageRequest): Promise<Page<AuditEvent>> {
  const rows = await query
    .where(olderThan(page.cursor))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return pageFrom(rows.map(toAuditEvent), page.limit, (e) => [e.createdAt, e.id]);
}

/** A channel's audit log, newest first, filtered by any of its indexed columns. */
export function auditLog(db: Db, spellings: LegacySpellings): AuditLog {
  const auditLog: AuditLog = {
    appendAudit: (event: NewAuditEvent): Promise<AuditEvent> => appendChained(db, event),
    auditHead: (tenantId) => readHead(db, tenantId),
    chainedAudit: (tenantId, afterSeq, limit) => chainPage(db, tenantId, afterSeq, limit),
    async listAudit(channelId: string, page: PageRequest, filter: AuditFilter = {}): Promise<Page<AuditEvent>> {
      // The keyset cursor is (created_at, id) whatever the filter, so a page's `next` goes on with
      // the same filter; each filter has an index starting (channel_id, column) (migrations 003, 009).
      let query = db.selectFrom('audit_events').selectAll().where('channel_id', '=', channelId);
      if (filter.action !== undefined) query = query.where('action', '=', filter.action);
      if (filter.adminId !== undefined) query = query.where('admin_id', '=', filter.adminId);
      if (filter.folder !== undefined) query = query.where('folder', 'in', await spellings.of(channelId, 'folder', filter.folder));
      if (filter.filename !== undefined) query = query.where('filename', 'in', await spellings.of(channelId, 'file', filter.filename));
      if (filter.result !== undefined) query = query.where('result', '=', filter.result);
      if (filter.operationId !== undefined) query = query.where('operation_id', '=', filter.operationId);
      return newestFirst(query, page);
    },
    async listTenantAudit(tenantId, page, filter = {}) {
      // Indexed by (tenant_id, created_at, id) and (tenant_id, target_admin_id, …) (migration 016);
      // a channel filter uses the channel's own indexes.
      let query = db.selectFrom('audit_events').selectAll().where('tenant_id', '=', tenantId);
      if (filter.channelId !== undefined) query = query.where('channel_id', '=', filter.channelId);
      if (filter.action !== undefined) query = query.where('action', '=', filter.action);
      if (filter.adminId !== undefined) query = query.where('admin_id', '=', filter.adminId);
      if (filter.targetAdminId !== undefined) query = query.where('target_admin_id', '=', filter.targetAdminId);
      if (filter.result !== undefined) query = query.where('result', '=', filter.result);
      if (filter.operationId !== undefined) query = query.where('operation_id', '=', filter.operationId);
      if (filter.folder !== undefined) query = query.where('folder', '=', filter.folder);
      if (filter.filename !== undefined) query = query.where('filename', '=', filter.filename);
      const visible = filter.visibleTo;
      if (visible !== undefined) {
        const channels = visible.channelIds.length > 0 ? [...visible.channelIds] : [NO_CHANNEL_MATCH];
        const admins = visible.adminIds.length > 0 ? [...visible.adminIds] : [NO_CHANNEL_MATCH];
        query = query.where((eb) => eb.or([eb('channel_id', 'in', channels), eb('target_admin_id', 'in', admins)]));
      }
      return newestFirst(query, page);
    },
  };
  return auditLog;
}
