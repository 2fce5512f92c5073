import type { BackupScope } from './backups.ts';
import type { Page, PageRequest } from './paging.ts';

/**
 * A channel's live files. Times are epoch ms. Paths are (channelId, folder, filename); folder and
 * filename have passed safeSegment(). A folder a listing, count or filter names is in NFC and covers
 * the spellings an older release stored of it (legacy spellings); a file is looked up by its stored
 * spelling, which `lookalikes` finds.
 */

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

/** A folder of a channel as listings show it: folders exist while they hold a live file. */
export interface FolderSummary {
  name: string;
  /** Live files in it (deleted ones, kept only as versions, do not count). */
  fileCount: number;
}

/** The live record of each file: what a download sends. */
export interface LiveFiles {
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
  /**
   * The files stored under `path` (folder and name in NFC) or a look-alike spelling of either;
   * undefined when no older release stored another spelling of them in this channel (then only
   * `path` itself can name a file: the usual case, which costs no query).
   */
  lookalikes(channelId: string, path: StoredPath): Promise<Lookalikes | undefined>;
  /** Live files within `scope`: the whole channel's count is kept beside its clock, a folder's is one index count. */
  countFiles(channelId: string, scope: BackupScope): Promise<number>;
  /** Channel ids that have any file, version or backup (for the scheduler). */
  channelsWithFiles(): Promise<string[]>;
}

/** One entity tag of a request header: `opaque` keeps its quotes (`"…"`), `weak` its `W/` prefix. */
export interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** What an If-Match or If-None-Match header lists: any current file (`*`), or these tags. */
export type TagCondition = 'any' | readonly EntityTag[];

/** A write's conditions on the live file, as RFC 9110 §13 states them; empty: unconditional. */
export interface Precondition {
  ifMatch?: TagCondition;
  ifNoneMatch?: TagCondition;
}

/** Deletes and restores take If-Match only (If-None-Match is refused at the HTTP boundary). */
export type MatchPrecondition = Pick<Precondition, 'ifMatch'>;
