import type { BackupEntry, FileRecord } from '../store/file-catalog-types.ts';

export type ScopeChangeAction = 'replace' | 'create' | 'delete';

/** One file a scope restore changes. */
export interface ScopeChange {
  folder: string;
  filename: string;
  action: ScopeChangeAction;
}

export interface ScopeRestorePlan {
  /** By folder, then filename. */
  changes: ScopeChange[];
  /** Live files that already hold their bytes of the backup. */
  unchanged: number;
}

/**
 * What bringing a scope back to a backup changes: each file the backup holds is replaced (live with
 * other bytes) or created (not live), or left alone (same sha256); a live file the backup does not
 * hold is deleted only when `withDeletes`. Both lists must be of the same scope already.
 */
export function planScopeRestore(entries: BackupEntry[], live: FileRecord[], withDeletes: boolean): ScopeRestorePlan {
  const liveByPath = new Map(live.map((file) => [pathKey(file), file]));
  const changes: ScopeChange[] = [];
  let unchanged = 0;
  for (const entry of entries) {
    const current = liveByPath.get(pathKey(entry));
    liveByPath.delete(pathKey(entry));
    if (current === undefined) changes.push(change(entry, 'create'));
    else if (current.sha256 !== entry.sha256) changes.push(change(entry, 'replace'));
    else unchanged++;
  }
  // Left in the map: live files the backup does not hold.
  if (withDeletes) for (const extra of liveByPath.values()) changes.push(change(extra, 'delete'));
  changes.sort((a, b) => compare(a.folder, b.folder) || compare(a.filename, b.filename));
  return { changes, unchanged };
}

// Names cannot hold '/' (safeSegment), so folder/filename names one file unambiguously.
const pathKey = (file: { folder: string; filename: string }): string => `${file.folder}/${file.filename}`;

const change = (file: { folder: string; filename: string }, action: ScopeChangeAction): ScopeChange => ({
  folder: file.folder,
  filename: file.filename,
  action,
});

/** By code unit, as the databases' binary collations order names, whatever the locale. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
