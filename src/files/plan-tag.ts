import { createHash } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { MatchPrecondition } from '../model/files.ts';
import { ifMatchMet } from './preconditions.ts';
import type { PlannedChange } from './scope-restore-plan.ts';

/** What shapes a folder or channel restore's plan, besides the files: the scope, the state restored and `delete`. */
export interface PlanOptions {
  /** Null: the whole channel. */
  folder: string | null;
  /** A backup by its timestamp, or an instant by its epoch ms (so that two spellings of one instant are one plan). */
  source: { backupTimestamp: string } | { at: number };
  delete: boolean;
}

/**
 * The strong ETag of a plan: a hash of its options and of each change with the live bytes it acts
 * on. Two plans have one tag exactly when a restore would do the same thing to the same bytes, so
 * "restore what I reviewed" is If-Match with the dry run's tag: a write to a file the plan touches,
 * or one that adds a file to the plan or takes one out of it, changes the tag. Files the plan
 * leaves alone (and the `unchanged` count, which follows them) are not part of it.
 */
export function planTagOf(options: PlanOptions, changes: readonly PlannedChange[]): string {
  const source = 'backupTimestamp' in options.source ? ['backup', options.source.backupTimestamp] : ['at', options.source.at];
  // JSON of arrays: names hold any character, and JSON escapes the separators, so no two inputs meet.
  const canonical = JSON.stringify([
    'scope-restore-plan/1',
    options.folder,
    source,
    options.delete,
    changes.map((c) => [c.folder, c.filename, c.action, c.liveSha256]),
  ]);
  return `"${createHash('sha256').update(canonical).digest('hex')}"`;
}

/**
 * Refuses (PRECONDITION_FAILED, with the current tag) a restore whose If-Match does not name the
 * plan it would carry out now; `*` names any plan. Checked before anything is written: a refused
 * restore takes no safety backup and changes no file.
 */
export function checkPlanPrecondition(precondition: MatchPrecondition, currentTag: string, scope: string): void {
  if (precondition.ifMatch === undefined || ifMatchMet(precondition.ifMatch, currentTag)) return;
  throw new AppError(
    'PRECONDITION_FAILED',
    `If-Match is not met: the plan of this restore is no longer the one tagged (${scope} changed since); ` +
      `the current plan's ETag is ${currentTag}; nothing was restored`,
    { currentEtag: currentTag },
  );
}
