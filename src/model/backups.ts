import type { Page, PageRequest } from './paging.ts';
import type { FileVersion } from './versions.ts';

/** Backups: named instants of a channel's history, and the retention that lets old ones go. */

/**
 * What made a backup: an admin's request ('api'), BACKUP_INTERVAL ('schedule'), the CLI ('cli'), a
 * folder or channel restore's safety backup ('restore'), or the demo data of a first start ('demo').
 */
export const BACKUP_ORIGINS = ['api', 'schedule', 'cli', 'restore', 'demo'] as const;

export type BackupOrigin = (typeof BACKUP_ORIGINS)[number];

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
}

/** What a backup is asked to name; the catalog adds the channel's file count and bytes at that instant. */
export type NewBackup = Omit<BackupRecord, 'files' | 'bytes' | 'seq'>;

/** Which part of a channel a backup is read for: one folder, or (no folder) all of it. */
export interface BackupScope {
  folder?: string | undefined;
}

/** A channel's backups, what each holds of a file, and retention. */
export interface Backups {
  /**
   * Records a backup: the channel's current instant, in one row, whatever the channel's size. A
   * backup of the channel with the same timestamp already there → AppError BACKUP_EXISTS (409).
   */
  createBackup(backup: NewBackup): Promise<BackupRecord>;
  getBackup(channelId: string, timestamp: string): Promise<BackupRecord | undefined>;
  /** Newest first. */
  listBackups(channelId: string, page: PageRequest): Promise<Page<BackupRecord>>;
  /** The file as the backup holds it (blobKey null: the live bytes are those); undefined when the backup does not hold it. */
  backupVersion(channelId: string, timestamp: string, folder: string, filename: string): Promise<FileVersion | undefined>;
  /** The file's version in the newest backup that holds it. */
  newestBackupVersion(channelId: string, folder: string, filename: string): Promise<FileVersion | undefined>;
  /**
   * Retention: removes backups of the channel beyond the newest `keepLast` that are also older
   * than `olderThan`, and 'replaced'/'deleted' versions older than `versionsOlderThan`, but never
   * the newest remaining version of any file. Returns the blob keys no longer referenced.
   */
  pruneChannel(channelId: string, rules: { keepLast: number; backupsOlderThan: number; versionsOlderThan: number }): Promise<string[]>;
}
