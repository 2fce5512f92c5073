import type { Kysely } from 'kysely';

/**
 * The audit log is listed newest first by (created_at, id), optionally filtered by one or more of
 * action, admin, folder, filename and result. With only (channel_id, created_at, id), a filter
 * that matches few events (a restore among a million uploads, one file's history) reads the
 * channel's whole log for a page. Each index below starts with the filtered column after the
 * channel and keeps the listing's order, so a page reads about as many rows as it answers.
 * Several filters together read one of their indexes and check the others on the rows it yields.
 */
const AUDIT_FILTER_INDEXES: Record<string, string> = {
  audit_events_action_idx: 'action',
  audit_events_admin_idx: 'admin_id',
  audit_events_folder_idx: 'folder',
  audit_events_filename_idx: 'filename',
  audit_events_result_idx: 'result',
};

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, column] of Object.entries(AUDIT_FILTER_INDEXES)) {
    await db.schema.createIndex(name).on('audit_events').columns(['channel_id', column, 'created_at', 'id']).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of Object.keys(AUDIT_FILTER_INDEXES)) await db.schema.dropIndex(name).execute();
}
