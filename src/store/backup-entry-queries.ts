import { type Kysely, sql } from 'kysely';
import { backupEntryId, type HistoryState, stateAt, stateOfBackup } from './channel-history.ts';
import type { BackupEntry, BackupRecord, BackupScope } from './file-catalog-types.ts';
import type { Database } from './schema.ts';

/**
 * The files `backup` of the channel holds within `scope`, by folder then filename (see
 * channel-history.ts for what a backup's state is). The folder is matched exactly (never as a
 * prefix): `docs` is not `docs2`.
 */
export async function backupEntries(db: Kysely<Database>, backup: BackupRecord, scope: BackupScope): Promise<BackupEntry[]> {
  const state = stateOfBackup(backup);
  const entries = await entriesAt(db, backup.channelId, state, scope);
  // An instant backup's entries are named by the backup and the file, whatever row holds their bytes.
  if ('seq' in state) for (const entry of entries) entry.versionId = backupEntryId(backup.timestamp, entry.folder, entry.filename);
  return entries;
}

/** The files the channel held at `state` within `scope`, by folder then filename. */
export async function entriesAt(db: Kysely<Database>, channelId: string, state: HistoryState, scope: BackupScope): Promise<BackupEntry[]> {
  const rows = await sql<Record<string, unknown>>`select * from (${stateAt(channelId, state, scope)}) s
    order by s.folder, s.filename`.execute(db);
  const entries: BackupEntry[] = [];
  for (const row of rows.rows) {
    const entry: BackupEntry = {
      folder: String(row.folder),
      filename: String(row.filename),
      versionId: row.version_id === null ? null : String(row.version_id),
      blobKey: row.blob_key === null ? null : String(row.blob_key),
      sha256: String(row.sha256),
      size: Number(row.size),
      contentType: String(row.content_type),
    };
    // One entry per file, should a crash have left two versions whose spans overlap.
    const last = entries.at(-1);
    if (last?.folder !== entry.folder || last.filename !== entry.filename) entries.push(entry);
  }
  return entries;
}
