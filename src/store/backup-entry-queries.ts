import type { Kysely } from 'kysely';
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
  blobKey: string;
  sha256: string;
  size: number;
  contentType: string;
}

/**
 * The files backup `timestamp` of the channel holds within `scope`, by folder then filename. A
 * backup is, today, one 'backup' version per file carrying its timestamp; this is the one query
 * that knows it, so a different layout of backups replaces this body only. The folder is matched
 * exactly (never as a prefix): `docs` is not `docs2`.
 */
export async function backupEntries(
  db: Kysely<Database>,
  channelId: string,
  timestamp: string,
  scope: BackupScope,
): Promise<BackupEntry[]> {
  let query = db
    .selectFrom('file_versions')
    .select(['folder', 'filename', 'id', 'blob_key', 'sha256', 'size', 'content_type'])
    .where('channel_id', '=', channelId)
    .where('kind', '=', 'backup')
    .where('backup_timestamp', '=', timestamp);
  if (scope.folder !== undefined) query = query.where('folder', '=', scope.folder);
  const rows = await query.orderBy('folder').orderBy('filename').execute();
  return rows.map((row) => ({
    folder: row.folder,
    filename: row.filename,
    versionId: row.id,
    blobKey: row.blob_key,
    sha256: row.sha256,
    size: Number(row.size),
    contentType: row.content_type,
  }));
}
