import type { NewAuditEvent } from './audit.ts';
import type { Page, PageRequest } from './paging.ts';
import type { FileVersion } from './versions.ts';

/** Backups: named instants of a channel's history, and the retention that lets old ones go. */

/**
 * What made a backup: an admin's request ('api'), BACKUP_INTERVAL ('schedule'), the CLI ('cli'), a
 * folder or channel restore's safety backup ('restore'), or the demo data of a first start ('demo').
 */
export const BACKUP_ORIGINS = ['api', 'schedule', 'cli', 'restore', 'demo'] as const;

export type BackupOrigin = (typeof BACKUP_ORIGINS)[number];

/**
 * A backup's retention lock (docs/backup-locks.md): 'governance' may be shortened or lifted by an
 * owner (or the operator's CLI); 'compliance' by nobody before its date, only extended.
 */
export const LOCK_MODES = ['governance', 'compliance'] as const;

export type LockMode = (typeof LOCK_MODES)[number];

/** What protects a backup from deletion and retention, as stored (migration 017). */
export interface BackupLock {
  /** The retention lock; null: none. */
  mode: LockMode | null;
  /** When the retention lock ends (epoch ms); null exactly when mode is. Past it, the lock holds no more. */
  until: number | null;
  /** Held until released, whatever the date. */
  legalHold: boolean;
  /** The admin who last changed the lock; null for the operator's CLI. */
  lockedBy: string | null;
  /** When it was last changed. */
  lockedAt: number;
}

/** Whether `lock` protects its backup at `now`: a legal hold, or a retention lock not yet past its date. */
export function holdsAt(lock: BackupLock | null | undefined, now: number): boolean {
  if (lock == null) return false;
  return lock.legalHold || (lock.mode !== null && lock.until !== null && lock.until > now);
}

/** What deleting a backup came to: gone, refused by its lock, or there was none. */
export type BackupDeletion = 'deleted' | 'locked' | 'missing';

export interface BackupRecord {
  channelId: string;
  timestamp: string; // yyyyMMdd_HHmmss, UTC
  files: number;
  bytes: number;
  /** The admin who made it (through the API, a restore or the demo seed); null for the schedule and the CLI. */
  createdBy: string | null;
  /** Null for a backup made before migration 012: nothing recorded what made it. */
  origin: BackupOrigin | null;
  createdAt: number;
  /** The instant of the channel's history it names; null for a backup from before migration 005 (per-file rows). */
  seq?: number | null;
  /** Its lock and legal hold; null when it has neither (never locked, or everything lifted). */
  lock: BackupLock | null;
}

/** What a backup is asked to name; the catalog adds the channel's file count and bytes at that instant. A new backup is unlocked. */
export type NewBackup = Omit<BackupRecord, 'files' | 'bytes' | 'seq' | 'lock'>;

/** Which part of a channel a backup is read for: one folder, or (no folder) all of it. */
export interface BackupScope {
  folder?: string | undefined;
}

export interface PruneRules {
  keepLast: number;
  backupsOlderThan: number;
  versionsOlderThan: number;
  /** The instant locks are judged at: a lock whose date has passed keeps nothing. */
  now: number;
}

/** What one retention run removed of a channel: the backups, by timestamp, and how many versions and blobs. */
export interface Pruned {
  backups: string[];
  versions: number;
  blobs: number;
}

/** A channel's backups, what each holds of a file, and retention. */
export interface Backups {
  /**
   * Records a backup: the channel's current instant, in one row, whatever the channel's size. A
   * backup of the channel with the same timestamp already there → AppError BACKUP_EXISTS (409).
   */
  createBackup(backup: NewBackup, audit?: NewAuditEvent): Promise<BackupRecord>;
  getBackup(channelId: string, timestamp: string): Promise<BackupRecord | undefined>;
  /** Newest first. */
  listBackups(channelId: string, page: PageRequest): Promise<Page<BackupRecord>>;
  /** The file as the backup holds it (blobKey null: the live bytes are those); undefined when the backup does not hold it. */
  backupVersion(channelId: string, timestamp: string, folder: string, filename: string): Promise<FileVersion | undefined>;
  /** The file's version in the newest backup that holds it. */
  newestBackupVersion(channelId: string, folder: string, filename: string): Promise<FileVersion | undefined>;
  /**
   * Retention: removes backups of the channel beyond the newest `keepLast` that are also older
   * than `olderThan` and not locked at `now` (holdsAt), and 'replaced'/'deleted' versions older
   * than `versionsOlderThan`, but never one a remaining backup names nor the newest remaining
   * version of any file. Returns the blob keys no longer referenced. `audit` is the run's entry,
   * given what it removes and appended in its transaction; nothing removed, no entry.
   */
  pruneChannel(channelId: string, rules: PruneRules, audit?: (pruned: Pruned) => NewAuditEvent): Promise<string[]>;
  /**
   * Sets the backup's lock to `next` (null: neither lock nor hold) only if it is still `expected`
   * (compared on mode, until and legal hold): false when it changed in between or the backup is gone.
   */
  setBackupLock(
    channelId: string,
    timestamp: string,
    expected: BackupLock | null,
    next: BackupLock | null,
    audit?: NewAuditEvent,
  ): Promise<boolean>;
  /**
   * Removes the backup's row, in one statement that also checks its lock at `now`, so a lock set
   * at the same moment is never lost: 'locked' when it holds (a governance lock does not when
   * `bypassGovernance`), 'missing' when there is no such backup. Its versions are left to retention.
   */
  deleteBackup(
    channelId: string,
    timestamp: string,
    check: { now: number; bypassGovernance: boolean },
    audit?: NewAuditEvent,
  ): Promise<BackupDeletion>;
}
