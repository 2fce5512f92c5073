import { AppError } from '../errors/app-error.ts';
import type { FileLocks } from '../locks/file-locks.ts';
import type { BlobStorage } from '../storage/blob-storage.ts';
import { backupOfEntryId } from '../store/channel-history.ts';
import type { FileCatalog, FileRecord, FileVersion } from '../store/file-catalog-types.ts';
import type { Channel } from '../store/types.ts';
import { type Actor, type AuditTrail, requestedDetails } from './audit-trail.ts';
import { parseBackupTimestamp } from './backup-timestamp.ts';
import { fileLockKey } from './blob-layout.ts';
import { downloadDisposition } from './download-disposition.ts';
import { type FilePath, filePath } from './file-path.ts';
import { type ResolvedInstant, resolveRestorableInstant } from './instant.ts';
import { type LiveWriteDeps, replaceLiveFile } from './live-writes.ts';
import { checkPrecondition, type MatchPrecondition } from './preconditions.ts';
import type { PublicCopies } from './public-copies.ts';

export interface RestoreServiceDeps {
  blobs: BlobStorage;
  catalog: FileCatalog;
  locks: FileLocks;
  audit: AuditTrail;
  now?: () => number;
  /** With S3_PUBLIC_BASE_URL (public-copies.ts). */
  publicCopies?: PublicCopies | undefined;
}

/**
 * Which stored bytes to bring back: a backup (newest holding the file when none is named), a kept
 * version, or the file's state at an instant (RFC 3339 as asked, or resolved by a scope restore).
 */
export interface RestoreSource {
  backupTimestamp?: string | undefined;
  versionId?: string | undefined;
  at?: string | ResolvedInstant | undefined;
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
  constructor(private readonly deps: RestoreServiceDeps) {
    this.live = { blobs: deps.blobs, catalog: deps.catalog, now: deps.now ?? Date.now, publicCopies: deps.publicCopies };
  }

  /**
   * Every outcome is in the audit log, refusals included (a bad path, timestamp or source); the
   * caller has already checked the channel and the permission (ChannelAccess audits those refusals).
   */
  async restore(
    channel: Channel,
    actor: Actor,
    requested: { folder: string; filename: string },
    source: RestoreSource,
    precondition: MatchPrecondition = {},
  ): Promise<RestoreOutcome> {
    const { blobs, catalog, audit, locks } = this.deps;
    const asked = requestedDetails({ ...requested, ...source, at: instantAsked(source.at) });
    return audit.around(channel, actor, 'restore', asked, async () => {
      const named = (['backupTimestamp', 'versionId', 'at'] as const).filter((name) => source[name] !== undefined);
      if (named.length > 1)
        throw new AppError('VALIDATION_FAILED', `Give one of backupTimestamp, versionId or at, not ${named.join(' and ')}`);
      const path = filePath(requested.folder, requested.filename);
      const outcome = await locks.runExclusive(fileLockKey(channel.id, path.folder, path.filename), async (): Promise<RestoreOutcome> => {
        // Read under the lock: the source (a backup's state of the file may be the live bytes, until
        // a write replaces them), and the current record the precondition, the no-op check and the
        // kept version use.
        const version = await this.findSource(channel, path, source);
        const current = await catalog.getFile(channel.id, path.folder, path.filename);
        checkPrecondition(precondition, current);
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
        const { file, keptVersionId } = await replaceLiveFile(this.live, current, channel.id, path, contentType, (blobKey) =>
          blobs.copy(from, blobKey, { expectedSha256: sha256, contentType, contentDisposition }),
        );
        return { file, source: version, changed: true, keptVersionId };
      });
      // At an instant: the kept version restored (its own ver_ id, no backup), or nothing for the live bytes.
      const version = outcome.source;
      return {
        value: outcome,
        details: {
          backupTimestamp: version?.backupTimestamp ?? null,
          versionId: version?.id ?? null,
          sha256: version?.sha256 ?? outcome.file.sha256,
          bytes: outcome.changed ? outcome.file.size : 0,
        },
      };
    });
  }

  /** The bytes to restore; null for an instant at which the file held its live bytes. */
  private async findSource(channel: Channel, path: FilePath, source: RestoreSource): Promise<FileVersion | null> {
    const { catalog } = this.deps;
    if (source.at !== undefined) {
      const instant =
        typeof source.at === 'string' ? await resolveRestorableInstant(catalog, channel, source.at, this.live.now()) : source.at;
      const state = await catalog.fileAtSeq(channel.id, instant.seq, path.folder, path.filename);
      if (state === undefined) {
        throw new AppError(
          'BACKUP_FILE_NOT_FOUND',
          `"${path.folder}/${path.filename}" did not exist at ${new Date(instant.at).toISOString()}`,
        );
      }
      return 'kept' in state ? state.kept : null;
    }
    // A backup's entry in a file's version list names the backup.
    const entryBackup = source.versionId === undefined ? undefined : backupOfEntryId(source.versionId, path.folder, path.filename);
    if (typeof entryBackup === 'string') return this.findSource(channel, path, { backupTimestamp: entryBackup });
    if (entryBackup === false) {
      throw new AppError('VERSION_NOT_FOUND', `No version "${String(source.versionId).slice(0, 60)}" of "${path.folder}/${path.filename}"`);
    }
    if (source.versionId !== undefined) {
      const version = await catalog.getVersion(channel.id, source.versionId);
      if (!version || version.folder !== path.folder || version.filename !== path.filename) {
        throw new AppError('VERSION_NOT_FOUND', `No version "${source.versionId.slice(0, 60)}" of "${path.folder}/${path.filename}"`);
      }
      return version;
    }
    if (source.backupTimestamp !== undefined) {
      const timestamp = parseBackupTimestamp(source.backupTimestamp);
      // backupVersion reads the backup itself: which of the two is missing is asked only on a miss.
      const version = await catalog.backupVersion(channel.id, timestamp, path.folder, path.filename);
      if (version) return version;
      if (!(await catalog.getBackup(channel.id, timestamp))) {
        throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
      }
      throw new AppError('BACKUP_FILE_NOT_FOUND', `Backup ${timestamp} does not hold "${path.folder}/${path.filename}"`);
    }
    const newest = await catalog.newestBackupVersion(channel.id, path.folder, path.filename);
    if (!newest) throw new AppError('BACKUP_FILE_NOT_FOUND', `No backup of this channel holds "${path.folder}/${path.filename}"`);
    return newest;
  }
}

/**
 * The instant as the audit log records it: as the caller asked (a single file's restore), or the
 * instant a folder or channel restore resolved once for all its files.
 */
function instantAsked(at: RestoreSource['at']): string | undefined {
  return at === undefined || typeof at === 'string' ? at : new Date(at.at).toISOString();
}
