import { type Kysely, sql } from 'kysely';
import { backupEntryId, stateAt } from './channel-history.ts';
import type { BackupRecord } from './file-catalog-types.ts';
import type { Database } from './schema.ts';

/** Which part of a channel a backup is read for: one folder, or (no folder) all of it. */
export interface BackupScope {
  folder?: string | undefined;
}

/** One file as a backup holds it: the version to restore it from and what its bytes are. */
export interface BackupEntry {
  folder: string;
  filename: string;
  versionId: string;
  /** Null: the backup's bytes of this file are its live bytes (not written since). */
  blobKey: string | null;
  sha256: string;
  size: number;
  contentType: string;
}

/**
 * The files `backup` of the channel holds within `scope`, by folder then filename (see
 * channel-history.ts for what a backup's state is). The folder is matched exactly (never as a
 * prefix): `docs` is not `docs2`.
 */
export async function backupEntries(db: Kysely<Database>, backup: BackupRecord, scope: BackupScope): Promise<BackupEntry[]> {
  const rows = await sql<Record<string, unknown>>`select * from (${stateAt(backup.channelId, backup, scope)}) s
    order by s.folder, s.filename`.execute(db);
  const entries: BackupEntry[] = [];
  for (const row of rows.rows) {
    const entry: BackupEntry = {
      folder: String(row.folder),
      filename: String(row.filename),
      versionId:
        row.version_id === null ? backupEntryId(backup.timestamp, String(row.folder), String(row.filename)) : String(row.version_id),
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
