import type { BackupOrigin } from '../model/backups.ts';
import { type TerminalText, terminalText } from './terminal-text.ts';

/**
 * What the CLI prints of a backup, in either mode: the store's record as backupJson() writes it
 * (locally), or the API's answer (over HTTP, which adds the name of the admin who made it).
 */
interface ShownBackup {
  timestamp: string;
  files: number;
  bytes: number;
  createdBy: string | null;
  createdByName?: string | null;
  origin: BackupOrigin | null;
  lock: ShownLock | null;
}

/** A backup's lock, its time in RFC 3339. */
interface ShownLock {
  mode: string | null;
  until: string | null;
  legalHold: boolean;
}

/** One line of `backup list`. */
export function backupLine(b: ShownBackup): TerminalText {
  return terminalText`${b.timestamp}  ${String(b.files).padStart(6)} files  ${String(b.bytes).padStart(12)} bytes  ${madeBy(b)}${lockText(b.lock, '  ')}`;
}

/** A backup's lock in a line of text ('' when it has none), after `lead`. */
export function lockText(lock: ShownLock | null, lead: string): string {
  if (lock === null) return '';
  const parts = [...(lock.mode === null ? [] : [`${lock.mode} lock until ${lock.until}`]), ...(lock.legalHold ? ['legal hold'] : [])];
  return `${lead}${parts.join(', ')}`;
}

/** Who made a backup; a backup from before origins were recorded claims nothing. */
function madeBy({ origin, createdBy, createdByName }: ShownBackup): string {
  const admin = createdBy === null ? 'no admin' : createdByName ? `${createdBy} "${createdByName}"` : createdBy;
  switch (origin) {
    case 'api':
      return `by ${admin} (API)`;
    case 'restore':
      return `by ${admin} (before a restore)`;
    case 'demo':
      return `by ${admin} (demo data)`;
    case 'schedule':
      return 'by the schedule';
    case 'cli':
      return 'by the CLI';
    case null:
      return createdBy === null ? 'by (not recorded)' : `by ${admin}`;
  }
}
