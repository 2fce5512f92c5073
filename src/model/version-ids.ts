import { createHash } from 'node:crypto';

/**
 * The ids of a file's entries in its version list that have no row of their own: a backup's
 * entry of a file is named by the backup and the file, so a client can hand it back (to restore
 * it, or as a page's cursor) and the service can tell which backup it means without a lookup.
 */
export const BACKUP_ENTRY_PREFIX = 'bkp_';
const ENTRY_ID = /^bkp_(\d{8}_\d{6})\.([0-9a-f]{16})$/;

/** Tells a file's entries apart from other files' entries of one backup: ids stay unique in a channel. */
const entryTag = (folder: string, filename: string) => createHash('sha256').update(`${folder}/${filename}`).digest('hex').slice(0, 16);

/** A backup's entry in a file's version list has no row of its own: its id names the backup and the file. */
export const backupEntryId = (timestamp: string, folder: string, filename: string) =>
  `${BACKUP_ENTRY_PREFIX}${timestamp}.${entryTag(folder, filename)}`;

/**
 * The backup a backup entry's id names, when it is one of the file's entries; `false` for an entry
 * id of another file; undefined for an id that is no backup entry's. The file's path is asked for
 * only of an entry's id: finding which file a name's history is may refuse a name two share.
 */
export function backupOfEntryId(id: string, fileOf: () => { folder: string; filename: string }): string | false | undefined {
  const match = ENTRY_ID.exec(id);
  if (!match) return undefined;
  const { folder, filename } = fileOf();
  return match[2] === entryTag(folder, filename) ? match[1]! : false;
}

/** The key a backup entry sorts by in SQL (its backup), for a cursor that holds the entry's id. */
export function backupSortKeyOfId(id: string): string {
  const entry = ENTRY_ID.exec(id);
  return entry ? `${BACKUP_ENTRY_PREFIX}${entry[1]}` : id;
}
