import type { BackupScope } from './backups.ts';
import type { Page, PageRequest } from './paging.ts';
import type { FileVersion } from './versions.ts';

/** A channel's history: its clock, the instants it retains, and what changed between two states. */

/** A file that differs between two states of a channel (two backups, or a backup and the live files). */
export interface FileChange {
  folder: string;
  filename: string;
  change: 'added' | 'changed' | 'deleted';
  /** Of the newer state; of the older one for 'deleted'. */
  size: number;
  sha256: string;
  /** The older state's size, for 'changed' and 'deleted': what a restore to the older state stores (docs/quotas.md); changesSince only. */
  olderSize?: number;
}

export interface ChangesOptions {
  /** Only this folder's files. */
  folder?: string | undefined;
  page: PageRequest;
}

/** A state as a request names it: a backup (yyyyMMdd_HHmmss) or an instant's seq, resolved already. */
export type StateName = string | { seq: number };

/**
 * Instants of a channel's history by time (migration 006): the state at T is the state at the
 * newest seq ticked at or before T, complete only while retention has deleted nothing it needs
 * (seq >= retained_from_seq).
 */
export type InstantResolution = { retained: true; seq: number } | { retained: false; oldestRetainedAt: number };

/** A file's bytes at an instant of the history: the live record's, or a kept version's. */
export type FileAtSeq = { kept: FileVersion } | { live: { size: number; sha256: string; contentType: string } };

/** Instants of a channel's history and the changes between them. */
export interface ChannelHistory {
  /** The channel's clock: its history's current instant, and its live file count and bytes. */
  clock(channelId: string): Promise<{ seq: number; files: number; bytes: number }>;
  /** Which instant of the channel's history the time `at` (epoch ms) names, if retention still holds its state. */
  seqAt(channelId: string, at: number): Promise<InstantResolution>;
  /** The file at instant `seq` (from seqAt); undefined when it did not exist then. */
  fileAtSeq(channelId: string, seq: number, folder: string, filename: string): Promise<FileAtSeq | undefined>;
  /** What changed from state `from` (a backup, or an instant's seq) to `to` (null: the live files), by (folder, filename); see changes-queries.ts. */
  changesBetween(channelId: string, from: StateName, to: StateName | null, options: ChangesOptions): Promise<Page<FileChange>>;
  /**
   * Every change from state `from` (a backup, or an instant's seq) to the live files within `scope`,
   * unpaged, by folder then filename: what a folder or channel restore undoes. Reads only the files
   * written since an instant (see changes-queries.ts).
   */
  changesSince(channelId: string, from: StateName, scope: BackupScope): Promise<FileChange[]>;
}
