import { type Kysely, sql } from 'kysely';
import type { AuditEvent, AuditFilter, AuditLog, NewAuditEvent } from '../../model/audit.ts';
import { newAuditId } from '../../model/ids.ts';
import type { Page, PageRequest } from '../../model/paging.ts';
import type { LegacySpellings } from '../legacy-spellings.ts';
import { decodeCursor, pageFrom } from '../page-cursor.ts';
import type { Database } from '../schema.ts';
import { auditRow, toAuditEvent } from './file-catalog-rows.ts';

type Db = Kysely<Database>;

/**
 * Keyset condition "(created_at, id) comes before the cursor's" for newest-first lists. Row-value
 * comparison means the same on both engines (SQLite has it since 3.15).
 */
function olderThan(cursor: string | undefined) {
  if (cursor === undefined) return sql<boolean>`true`;
  const [createdAt, id] = decodeCursor(cursor, ['number', 'string']);
  return sql<boolean>`(created_at, id) < (${createdAt}, ${id})`;
}

/** A channel's audit log, newest first, filtered by any of its indexed columns. */
export function auditLog(db: Db, spellings: LegacySpellings): AuditLog {
  const auditLog: AuditLog = {
    async appendAudit(event: NewAuditEvent): Promise<AuditEvent> {
      const row = auditRow(newAuditId(), event);
      await db.insertInto('audit_events').values(row).execute();
      return toAuditEvent(row);
    },
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
      const rows = await query
        .where(olderThan(page.cursor))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(page.limit + 1)
        .execute();
      return pageFrom(rows.map(toAuditEvent), page.limit, (e) => [e.createdAt, e.id]);
    },
  };
  return auditLog;
}
