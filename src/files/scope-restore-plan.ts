import type { FileChange } from '../model/history.ts';

export type ScopeChangeAction = 'replace' | 'create' | 'delete';

/** One file a scope restore changes. */
export interface ScopeChange {
  folder: string;
  filename: string;
  action: ScopeChangeAction;
}

/** A change with the live bytes it acts on: what the plan's ETag covers (plan-tag.ts). */
export interface PlannedChange extends ScopeChange {
  /** The live file's sha256 now; null when there is none (a file to create). */
  liveSha256: string | null;
}

export interface ScopeRestorePlan {
  /** By folder, then filename. */
  changes: PlannedChange[];
  /** Live files that already hold their bytes of the backup. */
  unchanged: number;
  /**
   * What the restore adds to the channel's usage (docs/quotas.md): a record per file it replaces
   * or brings back, of the size it restores. A delete moves a record to the kept ones: nothing.
   */
  adds: { files: number; bytes: number };
}

/**
 * What bringing a scope back to a backup changes, from what changed in the scope since the backup
 * (`sinceBackup`, the backup's state against the live files) and how many files are live in it:
 * a file changed since is replaced, one deleted since is created again, one added since is deleted
 * only when `withDeletes`. Every other live file already holds the backup's bytes: the files
 * untouched since the backup are counted, never read.
 */
export function planScopeRestore(sinceBackup: FileChange[], liveFiles: number, withDeletes: boolean): ScopeRestorePlan {
  const changes: PlannedChange[] = [];
  const adds = { files: 0, bytes: 0 };
  let liveAndDifferent = 0;
  for (const file of sinceBackup) {
    // The newer state is the live one: its sha256 is the live file's, except for a file deleted since (none live).
    if (file.change === 'deleted') changes.push(change(file, 'create', null));
    else {
      liveAndDifferent++;
      if (file.change === 'changed') changes.push(change(file, 'replace', file.sha256));
      else if (withDeletes) changes.push(change(file, 'delete', file.sha256));
    }
    if (file.change !== 'added') {
      adds.files++;
      adds.bytes += file.olderSize ?? file.size;
    }
  }
  changes.sort((a, b) => compare(a.folder, b.folder) || compare(a.filename, b.filename));
  // Two reads: a write between them may tip the count by one, never below none.
  return { changes, unchanged: Math.max(0, liveFiles - liveAndDifferent), adds };
}

const change = (file: { folder: string; filename: string }, action: ScopeChangeAction, liveSha256: string | null): PlannedChange => ({
  folder: file.folder,
  filename: file.filename,
  action,
  liveSha256,
});

/** By code unit, as the databases' binary collations order names, whatever the locale. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
