/**
 * Metadata of channel files, their kept versions, backups and the audit log. Times are epoch ms.
 * Paths are (channelId, folder, filename); folder and filename have passed safeSegment(). A folder
 * a listing, count or filter names is in NFC and covers the spellings an older release stored of
 * it (legacy-spellings.ts); a file is looked up by its stored spelling, which `lookalikes` finds.
 */
export type VersionKind = 'backup' | 'replaced' | 'deleted';

/** A file's folder and name as stored. */
export interface StoredPath {
  folder: string;
  filename: string;
}

/**
 * The stored files a caller's name (in NFC) may mean: stored under it, or under a look-alike
 * spelling an older release stored (NFD from macOS, say): the live ones, and those of which
 * versions are kept (a deleted file's, a replaced one's).
 */
export interface Lookalikes {
  live: FileRecord[];
  kept: StoredPath[];
  /** The spellings of the folder that hold live files: where a new file of the folder goes. */
  liveFolders: string[];
}

export interface FileRecord {
  channelId: string;
  folder: string;
  filename: string;
  size: number;
  sha256: string;
  contentType: string;
  updatedAt: number;
  /**
   * Where its bytes are: a key written once, before the record named it, and never rewritten
   * (blob-layout.ts); when the record is replaced or deleted, the kept version takes it over.
   */
  blobKey: string;
  /**
   * The channel clock value when these bytes became live: the file's state at a backup is its
   * live record when sinceSeq <= the backup's instant. Set by the catalog; ignored on putFile.
   */
  sinceSeq?: number;
}

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

export const AUDIT_ACTIONS = ['upload', 'delete', 'backup', 'restore'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export const AUDIT_RESULTS = ['ok', 'refused', 'failed'] as const;
export type AuditResult = (typeof AUDIT_RESULTS)[number];

export interface AuditEvent {
  id: string; // aud_…
  tenantId: string;
  channelId: string;
  adminId: string | null;
  action: AuditAction;
  folder: string | null;
  filename: string | null;
  backupTimestamp: string | null;
  versionId: string | null;
  /** A restore to an instant: the instant asked for (RFC 3339); versionId names what it resolved to. */
  at: string | null;
  result: AuditResult;
  /** AppError code when refused or failed. */
  code: string | null;
  sha256: string | null;
  createdAt: number;
  /**
   * The operation the event belongs to (op_…): a folder or channel restore's own event, its safety
   * backup's and those of the files it restored or deleted carry its id. Null for everything else.
   */
  operationId: string | null;
  /** A folder or channel restore's own event: what it was asked and what it did; null on every other event. */
  operation: AuditOperation | null;
}

/** A folder or channel restore as its audit event records it (migration 009). */
export interface AuditOperation {
  /** A folder's restore (the event's folder names it) or the whole channel's. */
  scope: 'folder' | 'channel';
  /** The instant restored, as asked (RFC 3339); null when a backup was named (the event's backupTimestamp). */
  at: string | null;
  delete: boolean;
  dryRun: boolean;
  /** The backup taken before the first change; null when none was (a dry run, nothing to change, refused). */
  safetyBackup: string | null;
  /** Files done: per action, those the plan left alone (unchanged), and those whose restore or delete failed. */
  counts: { replaced: number; created: number; deleted: number; unchanged: number; failed: number };
}

export type NewAuditEvent = Omit<AuditEvent, 'id'>;

/** Which events of a channel's audit log to list: every given field must match exactly (AND). */
export interface AuditFilter {
  action?: AuditAction | undefined;
  adminId?: string | undefined;
  folder?: string | undefined;
  filename?: string | undefined;
  result?: AuditResult | undefined;
  operationId?: string | undefined;
}

/**
 * A write of a live file in progress: journalled before its bytes are stored under their fresh
 * key, cleared by the transaction that records them (commitWrite). An entry left behind names
 * bytes no record names, which write-journal.ts removes.
 */
export interface PendingWrite {
  id: string;
  channelId: string;
  folder: string;
  filename: string;
  /** The bytes the write stores; null for an entry journalled by a release before migration 011 (see legacyWrite). */
  blobKey: string | null;
  startedAt: number;
  /** Set once the write was given up (abandonWrite): nothing may record its bytes any more. */
  abandonedAt: number | null;
  /** Of an entry of a release before migration 011: the new bytes' sha256, size and type; null for its deletes. */
  legacy?: { sha256: string | null; size: number | null; contentType: string | null };
}

/** The journal entry a write makes before it stores its bytes. */
export type NewPendingWrite = Pick<PendingWrite, 'channelId' | 'folder' | 'filename' | 'startedAt'> & { blobKey: string };

/**
 * An upload's or a restore's commit: `file` (whose bytes are stored under file.blobKey) becomes
 * the live record, in one transaction with everything else the write changes.
 */
export interface WriteCommit {
  file: FileRecord;
  /** The journal entry of the write (journalWrite), ended by the commit. */
  writeId: string;
  /** The blob of the live record the writer read under the file's lock; null when there was none. */
  replaces: string | null;
  /** The id the kept version of the replaced bytes gets (chosen by the writer, so a retried commit can find it). */
  keptVersionId: string;
  /** Queue the file's public copy to follow (publicCopyDue), in the same transaction. */
  publicCopy: boolean;
}

/** A delete's commit: the live record (still naming `blobKey`) goes, its bytes kept as a 'deleted' version. */
export interface DeleteCommit {
  channelId: string;
  folder: string;
  filename: string;
  blobKey: string;
  keptVersionId: string;
  deletedBy: string | null;
  at: number;
  /** As for WriteCommit. */
  publicCopy: boolean;
}

/** A file whose public copy must be brought in line with its record (public-copies.ts). */
export interface PublicCopyDue {
  channelId: string;
  folder: string;
  filename: string;
  queuedAt: number;
}

/** What a commit did; `already`: an earlier attempt of the same write had committed it (its answer was lost). */
export interface CommittedWrite {
  created: boolean;
  kept: FileVersion | undefined;
  already: boolean;
}

/** A folder of a channel as listings show it: folders exist while they hold a live file. */
export interface FolderSummary {
  name: string;
  /** Live files in it (deleted ones, kept only as versions, do not count). */
  fileCount: number;
}

/** A file that differs between two states of a channel (two backups, or a backup and the live files). */
export interface FileChange {
  folder: string;
  filename: string;
  change: 'added' | 'changed' | 'deleted';
  /** Of the newer state; of the older one for 'deleted'. */
  size: number;
  sha256: string;
}

export interface PageRequest {
  limit: number; // 1..1000
  cursor?: string | undefined; // opaque, from a previous page's `next`
}

export interface Page<T> {
  items: T[];
  next: string | null;
}

export interface FileCatalog {
  /**
   * Inserts or replaces the live file's record as it is, and nothing else (no version kept): the
   * settling of an entry journalled by a release before migration 011, and tests. Writes go through commitWrite.
   */
  putFile(record: FileRecord): Promise<'created' | 'replaced'>;
  getFile(channelId: string, folder: string, filename: string): Promise<FileRecord | undefined>;
  /**
   * Removes the live record and nothing else, as putFile records one; `at`: the delete's time
   * (epoch ms), which the channel's clock records for instants. Deletes go through commitDelete.
   */
  deleteFile(channelId: string, folder: string, filename: string, at: number): Promise<boolean>;
  /** Files of one folder by filename. */
  listFiles(channelId: string, folder: string, page: PageRequest): Promise<Page<FileRecord>>;
  /** Folders holding at least one live file, by name, with their live file counts. */
  listFolders(channelId: string, page: PageRequest): Promise<Page<FolderSummary>>;
  /** Every live file of a channel, for taking a backup. */
  allFiles(channelId: string): Promise<FileRecord[]>;

  getVersion(channelId: string, id: string): Promise<FileVersion | undefined>;
  /** Versions of one file, newest first (createdAt, then id). */
  listVersions(channelId: string, folder: string, filename: string, page: PageRequest): Promise<Page<FileVersion>>;
  /** Deleted files of a folder that can still be restored (no live file of the name), by filename: each one's newest 'deleted' version. */
  listDeleted(channelId: string, folder: string, page: PageRequest): Promise<Page<FileVersion>>;
  /**
   * The files stored under `path` (folder and name in NFC) or a look-alike spelling of either;
   * undefined when no older release stored another spelling of them in this channel (then only
   * `path` itself can name a file: the usual case, which costs no query).
   */
  lookalikes(channelId: string, path: StoredPath): Promise<Lookalikes | undefined>;

  /**
   * Records a backup: the channel's current instant, in one row, whatever the channel's size. A
   * backup of the channel with the same timestamp already there → AppError BACKUP_EXISTS (409).
   */
  createBackup(backup: NewBackup): Promise<BackupRecord>;
  getBackup(channelId: string, timestamp: string): Promise<BackupRecord | undefined>;
  /** The channel's clock: its history's current instant, and its live file count and bytes. */
  clock(channelId: string): Promise<{ seq: number; files: number; bytes: number }>;
  /** Newest first. */
  listBackups(channelId: string, page: PageRequest): Promise<Page<BackupRecord>>;
  /** The file as the backup holds it (blobKey null: the live bytes are those); undefined when the backup does not hold it. */
  backupVersion(channelId: string, timestamp: string, folder: string, filename: string): Promise<FileVersion | undefined>;
  /** The file's version in the newest backup that holds it. */
  newestBackupVersion(channelId: string, folder: string, filename: string): Promise<FileVersion | undefined>;
  /** Which instant of the channel's history the time `at` (epoch ms) names, if retention still holds its state. */
  resolveInstant(channelId: string, at: number): Promise<InstantResolution>;
  /** The file at instant `seq` (from resolveInstant); undefined when it did not exist then. */
  fileAtSeq(channelId: string, seq: number, folder: string, filename: string): Promise<FileAtSeq | undefined>;
  /** What changed from state `from` (a backup, or an instant's seq) to `to` (null: the live files), by (folder, filename); see changes-queries.ts. */
  changesBetween(channelId: string, from: StateName, to: StateName | null, options: ChangesOptions): Promise<Page<FileChange>>;
  /**
   * Every change from state `from` (a backup, or an instant's seq) to the live files within `scope`,
   * unpaged, by folder then filename: what a folder or channel restore undoes. Reads only the files
   * written since an instant (see changes-queries.ts).
   */
  changesSince(channelId: string, from: StateName, scope: BackupScope): Promise<FileChange[]>;
  /** Live files within `scope`: the whole channel's count is kept beside its clock, a folder's is one index count. */
  countFiles(channelId: string, scope: BackupScope): Promise<number>;

  /**
   * Retention: removes backups of the channel beyond the newest `keepLast` that are also older
   * than `olderThan`, and 'replaced'/'deleted' versions older than `versionsOlderThan`, but never
   * the newest remaining version of any file. Returns the blob keys no longer referenced.
   */
  pruneChannel(channelId: string, rules: { keepLast: number; backupsOlderThan: number; versionsOlderThan: number }): Promise<string[]>;
  /** Channel ids that have any file, version or backup (for the scheduler). */
  channelsWithFiles(): Promise<string[]>;

  /** Journals a write before it stores its bytes (see write-journal.ts); returns the entry's id. */
  journalWrite(write: NewPendingWrite): Promise<string>;
  /**
   * The commit point of an upload or a restore, one transaction: the bytes of the record it
   * replaces become a 'replaced' version (their blob moves to it, nothing is copied), the new
   * record takes the live name, the channel's clock advances, the journal entry ends. Safe to
   * retry: when an earlier attempt committed, it says so (`already`). AppError SERVICE_UNAVAILABLE
   * when the entry was given up meanwhile (nothing may record its bytes); an Error when the live
   * record is not `replaces` any more (the file's lock did not hold).
   */
  commitWrite(commit: WriteCommit): Promise<CommittedWrite>;
  /** The commit point of a delete, one transaction; as commitWrite, safe to retry. */
  commitDelete(commit: DeleteCommit): Promise<{ kept: FileVersion; already: boolean }>;
  /**
   * Gives up a journalled write that will never be recorded: true when it was still open (its
   * bytes may now be removed), false when it was committed or given up already.
   */
  abandonWrite(id: string, at: number): Promise<boolean>;
  /** Ends a journal entry whose write was given up and whose bytes are gone, or an entry of a release before migration 011. */
  endWrite(id: string): Promise<void>;
  pendingWrites(): Promise<PendingWrite[]>;
  /** The files whose public copy is behind their record, oldest first; one file's when `path` is given. */
  publicCopiesDue(path?: { channelId: string; folder: string; filename: string }): Promise<PublicCopyDue[]>;
  /** The copy followed the record as it was when `due` was queued: ended, unless a later write queued it again. */
  endPublicCopyDue(due: PublicCopyDue): Promise<void>;
  /** The kept version of the file whose bytes are `blobKey`, if one is (a blob has one owner). */
  versionHoldingBlob(path: { channelId: string; folder: string; filename: string }, blobKey: string): Promise<FileVersion | undefined>;
  /**
   * Points a version at a copy of its bytes under another key (`to`, stored and journalled as
   * `writeId`, which ends in the same transaction). False, and nothing changed, when the version
   * no longer names `from`.
   */
  moveVersionBlob(move: { versionId: string; from: string; to: string; writeId: string }): Promise<boolean>;

  appendAudit(event: NewAuditEvent): Promise<AuditEvent>;
  /** Newest first; only the events matching every field of `filter`. */
  listAudit(channelId: string, page: PageRequest, filter?: AuditFilter): Promise<Page<AuditEvent>>;
}

/** Which part of a channel a backup is read for: one folder, or (no folder) all of it. */
export interface BackupScope {
  folder?: string | undefined;
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
