import type { NewAuditEvent } from './audit.ts';
import type { FileRecord } from './files.ts';
import type { FileVersion } from './versions.ts';

/** Writes in flight: journalled before their bytes are stored, ended by the commit that records them. */

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
  /** The write's audit entry, appended in the same transaction (docs/audit-chain.md); not again by a retry that finds the write committed. */
  audit?: NewAuditEvent | undefined;
  /**
   * The write must stay within its channel's and its tenant's quotas: the commit reads them, and
   * the usage, in its own transaction, and refuses it (QUOTA_EXCEEDED, nothing recorded) past one
   * (docs/quotas.md). Exact whatever the writer read before its bytes, a quota set or lowered
   * meanwhile included. Uploads ask it; restores never do, since they must always be able to undo.
   */
  withinQuota?: boolean | undefined;
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
  audit?: NewAuditEvent | undefined;
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

/** The journal of writes in flight, their commit points, and the public copies that follow them. */
export interface WriteJournal {
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
}
