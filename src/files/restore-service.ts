import type { BlobStorage } from '../blobs/blob-storage.ts';
import { AppError } from '../errors/app-error.ts';
import type { FileLocks } from '../locks/file-locks.ts';
import type { Backups } from '../model/backups.ts';
import type { Channel } from '../model/channels.ts';
import type { FileRecord, LiveFiles, MatchPrecondition } from '../model/files.ts';
import type { ChannelHistory } from '../model/history.ts';
import type { FileVersion, KeptVersions } from '../model/versions.ts';
import type { WriteJournal } from '../model/write-journal.ts';
import { type Actor, type AuditTrail, requestedDetails } from './audit-trail.ts';
import { fileLockKey } from './blob-layout.ts';
import { downloadDisposition } from './download-disposition.ts';
import { FileNames } from './file-names.ts';
import type { FilePath, Naming } from './file-path.ts';
import { type CommitRetry, type LiveWriteDeps, replaceLiveFile } from './live-writes.ts';
import { checkPrecondition } from './preconditions.ts';
import type { PublicCopies } from './public-copies.ts';
import { findRestoreSource, type RestoreSource } from './restore-source.ts';

export interface RestoreServiceDeps {
  blobs: BlobStorage;
  catalog: Backups & ChannelHistory & KeptVersions & LiveFiles & WriteJournal;
  locks: FileLocks;
  audit: AuditTrail;
  now?: () => number;
  /** With S3_PUBLIC_BASE_URL (public-copies.ts). */
  publicCopies?: PublicCopies | undefined;
  /** When a failed commit is tried again (live-writes.ts COMMIT_RETRY unless given). */
  commitRetry?: CommitRetry | undefined;
}

export interface RestoreOutcome {
  file: FileRecord;
  /** Null: restored at an instant at which the file already held its live bytes (nothing to do). */
  source: FileVersion | null;
  /** False when the live bytes already were the source's: nothing was touched. */
  changed: boolean;
  /** The version that keeps what the restore replaced, when it replaced something. */
  keptVersionId: string | null;
}

/**
 * Restores one file: the source's bytes, checked against their recorded sha256, become a new
 * blob (a hard link or a server-side copy: no byte passes through here), which one transaction
 * makes the live record while the replaced bytes become a version (so every restore can be
 * undone). Restores of one file are serialised; of different files, parallel.
 */
export class RestoreService {
  private readonly live: LiveWriteDeps;
  private readonly names: FileNames;
  constructor(private readonly deps: RestoreServiceDeps) {
    this.live = {
      blobs: deps.blobs,
      catalog: deps.catalog,
      now: deps.now ?? Date.now,
      publicCopies: deps.publicCopies,
      commitRetry: deps.commitRetry,
    };
    this.names = new FileNames(deps.catalog);
  }

  /**
   * Every outcome is in the audit log, refusals included (a bad timestamp or source); the caller
   * has already checked the channel, the permission and the names (`asked`: filePath() at the edge,
   * or a plan's stored spelling; ChannelAccess audits those refusals).
   */
  async restore(
    channel: Channel,
    actor: Actor,
    asked: FilePath,
    source: RestoreSource,
    precondition: MatchPrecondition = {},
    naming: Naming = 'requested',
  ): Promise<RestoreOutcome> {
    const { blobs, audit, locks } = this.deps;
    // A single file's instant as the caller wrote it; one a folder or channel restore resolved for all its files, as it resolved it.
    const at = typeof source.at === 'object' ? source.at.written : source.at;
    const requestedNames = requestedDetails({ ...asked, ...source, at });
    return audit.around(channel, actor, 'restore', requestedNames, async (entryOf) => {
      const given = (['backupTimestamp', 'versionId', 'at'] as const).filter((name) => source[name] !== undefined);
      if (given.length > 1)
        throw new AppError('VALIDATION_FAILED', `Give one of backupTimestamp, versionId or at, not ${given.join(' and ')}`);
      const outcome = await locks.runExclusive(fileLockKey(channel.id, asked.folder, asked.filename), async (): Promise<RestoreOutcome> => {
        // Read under the lock: which file the name means, the source (a backup's state of the file
        // may be the live bytes, until a write replaces them), and the current record the
        // precondition, the no-op check and the kept version use.
        const named = await this.names.find(channel.id, asked, naming, precondition.ifMatch);
        const current = named.current;
        const version = await findRestoreSource(this.deps.catalog, channel, asked, named, source, this.live.now());
        checkPrecondition(precondition, current);
        // With no live file, the file comes back under the name its source was stored under.
        const path = current !== undefined || version === null ? named.path : pathOf(version);
        if (version === null) {
          // Read under the same lock: the live record written at or before the instant is still the live one.
          if (!current) throw new Error(`the live state of ${path.folder}/${path.filename} at an instant vanished under its lock`);
          return { file: current, source: null, changed: false, keptVersionId: null };
        }
        if (current && current.sha256 === version.sha256) {
          return { file: current, source: version, changed: false, keptVersionId: null };
        }
        const from = version.blobKey;
        // A source without a blob of its own is the live bytes, which the check above found equal.
        if (from === null) throw new Error(`restore source ${version.id} names the live bytes, which differ from them`);
        const { contentType, sha256 } = version;
        const contentDisposition = downloadDisposition(path.filename, contentType);
        const { file, keptVersionId } = await replaceLiveFile(
          this.live,
          current,
          channel.id,
          path,
          contentType,
          (blobKey) => blobs.copy(from, blobKey, { expectedSha256: sha256, contentType, contentDisposition }),
          () => entryOf(restoredDetails(version)),
        );
        return { file, source: version, changed: true, keptVersionId };
      });
      // At an instant: the kept version restored (its own ver_ id, no backup), or nothing for the live bytes.
      const version = outcome.source;
      return {
        value: outcome,
        details: {
          ...restoredDetails(version),
          sha256: version?.sha256 ?? outcome.file.sha256,
          bytes: outcome.changed ? outcome.file.size : 0,
        },
        // A restore onto the bytes already live changed nothing: its entry is appended after it.
        recorded: outcome.changed,
      };
    });
  }
}

const pathOf = ({ folder, filename }: FilePath): FilePath => ({ folder, filename });

/** What a restore's entry says of its source: the backup, the version. */
const restoredDetails = (version: FileVersion | null) => ({
  backupTimestamp: version?.backupTimestamp ?? null,
  versionId: version?.id ?? null,
  sha256: version?.sha256 ?? null,
});
