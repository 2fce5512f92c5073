import { AppError, isAppError } from '../errors/app-error.ts';
import { safeSegment } from '../storage/safe-path.ts';
import type { BackupScope, FileCatalog, StateName } from '../store/file-catalog-types.ts';
import type { Channel } from '../store/types.ts';
import { type Actor, type AuditTrail, requestedDetails } from './audit-trail.ts';
import type { BackupService } from './backup-service.ts';
import { formatBackupTimestamp, parseBackupTimestamp } from './backup-timestamp.ts';
import type { FileService } from './file-service.ts';
import { type ResolvedInstant, resolveInstant } from './instant.ts';
import type { RestoreService, RestoreSource } from './restore-service.ts';
import { planScopeRestore, type ScopeChange, type ScopeRestorePlan } from './scope-restore-plan.ts';

export interface ScopeRestoreServiceDeps {
  catalog: FileCatalog;
  audit: AuditTrail;
  files: FileService;
  backups: BackupService;
  restores: RestoreService;
  now?: () => number;
}

/** A restore of one folder (`folder` given) or of the whole channel from one backup, or to one instant. */
export interface ScopeRestoreRequest {
  folder?: string | undefined;
  /** Exactly one of backupTimestamp (yyyyMMdd_HHmmss) and at (RFC 3339). */
  backupTimestamp?: string | undefined;
  at?: string | undefined;
  /** Answer the plan and change nothing. */
  dryRun: boolean;
  /** Also delete live files of the scope that the backup does not hold (otherwise they stay). */
  delete: boolean;
}

export interface ScopeRestoreOutcome extends ScopeRestorePlan {
  dryRun: boolean;
  /** The backup of the whole channel taken before the first change: restoring the channel from it undoes this restore. */
  safetyBackup: string | null;
}

/** Files restored (or deleted) at once: a few hide the storage's latency without crowding the other requests. */
const FILE_CONCURRENCY = 4;
/** Same-second races lost to other backups before the safety backup gives up (each retry takes the next free second). */
const SAFETY_BACKUP_ATTEMPTS = 5;

/**
 * Brings a folder, or a whole channel, back to a backup. The plan is what changed in the scope
 * since the backup: only the files written since are read (FileCatalog.changesSince), so its
 * cost follows the change, not the scope. Then, unless it is a dry run or nothing differs, a
 * backup of the channel is taken first (the undo), and each file goes through the single-file paths: the
 * restore (under the file's lock, the current bytes kept as a version, a verified atomic copy)
 * or the delete (which keeps a 'deleted' version). A crash leaves each file old or new; running
 * the same restore again does what is left.
 *
 * A file someone else changes while the restore runs is restored anyway: the single-file restore
 * re-reads it under its lock and replaces it, keeping what that writer wrote as a version. The
 * backup's state is what the caller asked for, and the concurrent write stays restorable.
 */
export class ScopeRestoreService {
  private readonly now: () => number;
  constructor(private readonly deps: ScopeRestoreServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * One 'restore' event in the audit log for the scope (filename null), after the per-file events
   * of the files it changed. A dry run that is answered is a read and leaves no event; one refused
   * (bad timestamp, unknown backup) is recorded as every refused restore is.
   */
  async restore(channel: Channel, actor: Actor, request: ScopeRestoreRequest): Promise<ScopeRestoreOutcome> {
    const { audit } = this.deps;
    const details = requestedDetails({ folder: request.folder, backupTimestamp: request.backupTimestamp });
    if (request.dryRun) {
      try {
        const { plan } = await this.plan(channel, request);
        return { dryRun: true, safetyBackup: null, ...plan };
      } catch (error) {
        await audit.stopped(channel, actor, 'restore', details, error);
        throw error;
      }
    }
    return audit.around<ScopeRestoreOutcome>(channel, actor, 'restore', details, async () => {
      const { plan, source } = await this.plan(channel, request);
      if (plan.changes.length === 0) return { value: { dryRun: false, safetyBackup: null, ...plan }, details: { bytes: 0 } };
      const safetyBackup = await this.safetyBackup(channel, actor);
      const bytes = await this.apply(channel, actor, source, plan.changes);
      // At an instant there is no backup to name: the per-file events name the versions restored.
      return { value: { dryRun: false, safetyBackup, ...plan }, details: { backupTimestamp: source.backupTimestamp ?? null, bytes } };
    });
  }

  private async plan(channel: Channel, request: ScopeRestoreRequest): Promise<{ plan: ScopeRestorePlan; source: RestoreSource }> {
    const { catalog } = this.deps;
    if ((request.backupTimestamp === undefined) === (request.at === undefined)) {
      throw new AppError('VALIDATION_FAILED', 'Give exactly one of backupTimestamp (yyyyMMdd_HHmmss) and at (RFC 3339)');
    }
    const scope: BackupScope = request.folder === undefined ? {} : { folder: safeSegment(request.folder, 'folder name') };
    let from: StateName;
    let source: RestoreSource;
    if (request.at !== undefined) {
      // Resolved once: every file is restored to the same state, whatever is written meanwhile.
      const instant: ResolvedInstant = await resolveInstant(catalog, channel.id, request.at, this.now());
      from = { seq: instant.seq };
      source = { at: instant };
    } else {
      const timestamp = parseBackupTimestamp(request.backupTimestamp!);
      if (!(await catalog.getBackup(channel.id, timestamp))) {
        throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
      }
      from = timestamp;
      source = { backupTimestamp: timestamp };
    }
    const sinceThen = await catalog.changesSince(channel.id, from, scope);
    return { plan: planScopeRestore(sinceThen, await catalog.countFiles(channel.id, scope), request.delete), source };
  }

  /**
   * A backup of the whole channel, named by the current second or, when that second already has a
   * backup, the next free one: the undo must exist before the first file changes.
   */
  private async safetyBackup(channel: Channel, actor: Actor): Promise<string> {
    const { backups, catalog } = this.deps;
    let second = this.now();
    for (let attempt = 1; ; attempt++) {
      // Looked up first, so that an occupied second costs no refused 'backup' event in the audit log.
      while (await catalog.getBackup(channel.id, formatBackupTimestamp(second))) second += 1000;
      try {
        return (await backups.create(channel, actor, second)).timestamp;
      } catch (error) {
        if (!isAppError(error) || error.code !== 'BACKUP_EXISTS' || attempt === SAFETY_BACKUP_ATTEMPTS) throw error;
        second += 1000; // another backup took this second meanwhile
      }
    }
  }

  /** Applies the changes, a few files at a time; stops taking new ones at the first failure. Answers the bytes written. */
  private async apply(channel: Channel, actor: Actor, source: RestoreSource, changes: ScopeChange[]): Promise<number> {
    let next = 0;
    let failed = false;
    let bytes = 0;
    const worker = async () => {
      while (!failed && next < changes.length) {
        const change = changes[next++]!;
        try {
          bytes += await this.applyOne(channel, actor, source, change);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    const settled = await Promise.allSettled(Array.from({ length: Math.min(FILE_CONCURRENCY, changes.length) }, worker));
    const rejected = settled.find((result) => result.status === 'rejected');
    if (rejected) throw rejected.reason;
    return bytes;
  }

  private async applyOne(channel: Channel, actor: Actor, source: RestoreSource, change: ScopeChange): Promise<number> {
    const path = { folder: change.folder, filename: change.filename };
    if (change.action !== 'delete') {
      const outcome = await this.deps.restores.restore(channel, actor, path, source);
      return outcome.changed ? outcome.file.size : 0;
    }
    try {
      await this.deps.files.delete(channel, actor, path);
    } catch (error) {
      // Deleted by someone else since the plan: what the restore wanted.
      if (!isAppError(error) || error.code !== 'FILE_NOT_FOUND') throw error;
    }
    return 0;
  }
}
