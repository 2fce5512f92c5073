import type { Page, PageRequest } from './paging.ts';

/** Kept versions: the bytes a write replaced or a delete removed, and a backup's entry of a file. */

export type VersionKind = 'backup' | 'replaced' | 'deleted';

export interface FileVersion {
  id: string; // ver_…
  channelId: string;
  folder: string;
  filename: string;
  /** 'backup': part of backup `backupTimestamp`; 'replaced' / 'deleted': kept when an upload, restore or delete replaced or removed it. */
  kind: VersionKind;
  backupTimestamp: string | null; // yyyyMMdd_HHmmss
  /**
   * Where its bytes are kept; null for a backup's entry of a file whose bytes at that backup are
   * still the live ones (nothing was copied, nothing needs to be: the live record has them).
   */
  blobKey: string | null;
  size: number;
  sha256: string;
  contentType: string;
  createdAt: number;
  /** When a replaced or deleted version's bytes became live (the channel clock); null before migration 005. */
  sinceSeq?: number | null;
  /** The admin whose delete kept it; null for other versions, and for those kept before this was recorded. */
  createdBy: string | null;
}

/** A file's kept versions, and the deleted files they still hold. */
export interface KeptVersions {
  getVersion(channelId: string, id: string): Promise<FileVersion | undefined>;
  /** Versions of one file, newest first (createdAt, then id). */
  listVersions(channelId: string, folder: string, filename: string, page: PageRequest): Promise<Page<FileVersion>>;
  /** Deleted files of a folder that can still be restored (no live file of the name), by filename: each one's newest 'deleted' version. */
  listDeleted(channelId: string, folder: string, page: PageRequest): Promise<Page<FileVersion>>;
  /** The kept version of the file whose bytes are `blobKey`, if one is (a blob has one owner). */
  versionHoldingBlob(path: { channelId: string; folder: string; filename: string }, blobKey: string): Promise<FileVersion | undefined>;
  /**
   * Points a version at a copy of its bytes under another key (`to`, stored and journalled as
   * `writeId`, which ends in the same transaction). False, and nothing changed, when the version
   * no longer names `from`.
   */
  moveVersionBlob(move: { versionId: string; from: string; to: string; writeId: string }): Promise<boolean>;
}
