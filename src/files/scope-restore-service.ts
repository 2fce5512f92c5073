import { AppError, isAppError } from '../errors/app-error.ts';
import type { AuditOperation } from '../model/audit.ts';
import type { BackupScope, Backups } from '../model/backups.ts';
import type { Channel } from '../model/channels.ts';
import type { LiveFiles, MatchPrecondition } from '../model/files.ts';
import type { ChannelHistory, StateName } from '../model/history.ts';
import { newOperationId } from '../model/ids.ts';
import type { QuotaRecords } from '../model/quotas.ts';
import { formatBackupTimestamp, parseBackupTimestamp } from '../time/backup-timestamp.ts';
import { type Actor, type AuditDetails, type AuditTrail, requestedDetails } from './audit-trail.ts';
import type { BackupService } from './backup-service.ts';
import { folderName } from './file-path.ts';
import type { FileService } from './file-service.ts';
import { type ResolvedInstant, resolveRestorableInstant } from './instant.ts';
import { checkPlanPrecondition, type PlanOptions, planTagOf } from './plan-tag.ts';
import { type QuotaNotice, quotaPassedBy } from './quota-room.ts';
import type { RestoreService } from './restore-service.ts';
import type { RestoreSource } from './restore-source.ts';
import { type PlannedChange, planScopeRestore, type ScopeChange, type ScopeRestorePlan } from './scope-restore-plan.ts';

export interface ScopeRestoreServiceDeps {
  catalog: Backups & ChannelHistory & LiveFiles & Pick<QuotaRecords, 'channelQuotas' | 'channelUsage' | 'tenantUsage'>;
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
  /**
   * If-Match: the plan's ETag (a dry run's `etag`) that the plan computed now must have, else
   * PRECONDITION_FAILED before anything is written (a dry run is refused the same way).
   */
  precondition?: MatchPrecondition | undefined;
  /**
   * The safety backup an interrupted run of the same restore took already (a held restore taken
   * over: proposal-runs.ts): no other is taken, and the answer names this one, the undo of the whole.
   */
  safetyBackup?: string | undefined;
}

export interface ScopeRestoreOutcome {
  dryRun: boolean;
  /** The backup of the whole channel taken before the first change: restoring the channel from it undoes this restore. */
  safetyBackup: string | null;
  /** By folder, then filename. */
  changes: ScopeChange[];
  /** Live files that already hold their bytes of the backup. */
  unchanged: number;
  /** The plan's strong ETag (plan-tag.ts): what If-Match names to restore exactly this plan. */
  etag: string;
  /** The quota the restore goes past, when it does: it runs all the same (docs/quotas.md). */
  quota?: QuotaNotice;
}

type Counts = AuditOperation['counts'];
const COUNTED: Record<ScopeChange['action'], keyof Counts> = { replace: 'replaced', create: 'created', delete: 'deleted' };

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
   * One 'restore' event in the audit log for the scope (filename null) with what it was asked and
   * did (`operation`), after the events of its safety backup and of the files it changed, which
   * all carry its operation id. A dry run that is answered is a read and leaves no event; one
   * refused (bad timestamp, unknown backup, If-Match unmet) is recorded as every refused restore is.
   */
  async restore(channel: Channel, actor: Actor, request: ScopeRestoreRequest): Promise<ScopeRestoreOutcome> {
    const { audit } = this.deps;
    const operationId = newOperationId();
    // Each file's event and the safety backup's name the operation; only the scope's own event keeps
    // the intents of a held restore (docs/approvals.md), once, however many files it changes.
    const within: Actor = { adminId: actor.adminId, operator: actor.operator, run: actor.run, operationId };
    const scope: Actor = actor.intents === undefined ? within : { ...within, intents: actor.intents };
    const operation: AuditOperation = {
      scope: request.folder === undefined ? 'channel' : 'folder',
      at: request.at?.slice(0, 40) ?? null,
      delete: request.delete,
      dryRun: request.dryRun,
      safetyBackup: null,
      counts: { replaced: 0, created: 0, deleted: 0, unchanged: 0, failed: 0 },
    };
    // Read when the event is written: a restore stopped midway records the files it got to.
    const details = (): AuditDetails => ({
      ...requestedDetails({ folder: request.folder, backupTimestamp: request.backupTimestamp, at: request.at }),
      operation: { ...operation, counts: { ...operation.counts } },
    });
    if (request.dryRun) {
      try {
        const { plan, etag } = await this.plan(channel, request);
        const quota = await quotaPassedBy(this.deps.catalog, channel.id, plan.adds);
        return {
          dryRun: true,
          safetyBackup: null,
          changes: plan.changes.map(answered),
          unchanged: plan.unchanged,
          etag,
          ...(quota === undefined ? {} : { quota }),
        };
      } catch (error) {
        await audit.stopped(channel, scope, 'restore', details(), error);
        throw error;
      }
    }
    return audit.around<ScopeRestoreOutcome>(channel, scope, 'restore', details, async () => {
      const { plan, source, etag } = await this.plan(channel, request);
      operation.counts.unchanged = plan.unchanged;
      // Read before it runs: restores are never refused by a quota, and this one says it went past.
      const quota = await quotaPassedBy(this.deps.catalog, channel.id, plan.adds);
      const outcome = (safetyBackup: string | null): ScopeRestoreOutcome => ({
        dryRun: false,
        safetyBackup,
        changes: plan.changes.map(answered),
        unchanged: plan.unchanged,
        etag,
        ...(quota === undefined ? {} : { quota }),
      });
      if (plan.changes.length === 0) return { value: outcome(request.safetyBackup ?? null), details: { bytes: 0 } };
      operation.safetyBackup = request.safetyBackup ?? (await this.safetyBackup(channel, within));
      let bytes: number;
      try {
        bytes = await this.apply(channel, within, source, plan.changes, operation.counts);
      } catch (error) {
        throw stoppedPartway(error, operation);
      }
      // At an instant there is no backup to name: the per-file events name the versions restored.
      return { value: outcome(operation.safetyBackup), details: { backupTimestamp: source.backupTimestamp ?? null, bytes } };
    });
  }

  /** The plan now, its ETag, and the source it restores from; If-Match unmet → PRECONDITION_FAILED. */
  private async plan(
    channel: Channel,
    request: ScopeRestoreRequest,
  ): Promise<{ plan: ScopeRestorePlan; source: RestoreSource; etag: string }> {
    const { catalog } = this.deps;
    if ((request.backupTimestamp === undefined) === (request.at === undefined)) {
      throw new AppError('VALIDATION_FAILED', 'Give exactly one of backupTimestamp (yyyyMMdd_HHmmss) and at (RFC 3339)');
    }
    // The folder and its look-alike spellings, which the catalog reads together (file-catalog-types.ts).
    const scope: BackupScope = request.folder === undefined ? {} : { folder: folderName(request.folder) };
    let from: StateName;
    let source: RestoreSource;
    let tagged: PlanOptions['source'];
    if (request.at !== undefined) {
      // Resolved once: every file is restored to the same state, whatever is written meanwhile.
      const instant: ResolvedInstant = await resolveRestorableInstant(catalog, channel, request.at, this.now());
      from = { seq: instant.seq };
      source = { at: instant };
      tagged = { at: instant.at };
    } else {
      const timestamp = parseBackupTimestamp(request.backupTimestamp!);
      if (!(await catalog.getBackup(channel.id, timestamp))) {
        throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
      }
      from = timestamp;
      source = { backupTimestamp: timestamp };
      tagged = { backupTimestamp: timestamp };
    }
    const sinceThen = await catalog.changesSince(channel.id, from, scope);
    const plan = planScopeRestore(sinceThen, await catalog.countFiles(channel.id, scope), request.delete);
    const etag = planTagOf({ folder: scope.folder ?? null, source: tagged, delete: request.delete }, plan.changes);
    checkPlanPrecondition(request.precondition ?? {}, etag, scope.folder === undefined ? 'the channel' : `the folder ${scope.folder}`);
    return { plan, source, etag };
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
        return (await backups.create(channel, actor, 'restore', second)).timestamp;
      } catch (error) {
        if (!isAppError(error) || error.code !== 'BACKUP_EXISTS' || attempt === SAFETY_BACKUP_ATTEMPTS) throw error;
        second += 1000; // another backup took this second meanwhile
      }
    }
  }

  /**
   * Applies the changes, a few files at a time, counting each one done (or failed) in `counts`;
   * stops taking new ones at the first failure. Answers the bytes written.
   */
  private async apply(channel: Channel, actor: Actor, source: RestoreSource, changes: PlannedChange[], counts: Counts): Promise<number> {
    let next = 0;
    let failed = false;
    let bytes = 0;
    const worker = async () => {
      while (!failed && next < changes.length) {
        const change = changes[next++]!;
        try {
          bytes += await this.applyOne(channel, actor, source, change);
          counts[COUNTED[change.action]]++;
        } catch (error) {
          failed = true;
          counts.failed++;
          throw error;
        }
      }
    };
    const settled = await Promise.allSettled(Array.from({ length: Math.min(FILE_CONCURRENCY, changes.length) }, worker));
    const rejected = settled.find((result) => result.status === 'rejected');
    if (rejected) throw rejected.reason;
    return bytes;
  }

  /** A plan's entry names one stored file by its spelling: of two look-alikes an older release stored, each is its own entry. */
  private async applyOne(channel: Channel, actor: Actor, source: RestoreSource, change: ScopeChange): Promise<number> {
    const path = { folder: change.folder, filename: change.filename };
    if (change.action !== 'delete') {
      const outcome = await this.deps.restores.restore(channel, actor, path, source, {}, 'stored');
      return outcome.changed ? outcome.file.size : 0;
    }
    try {
      await this.deps.files.delete(channel, actor, path, {}, 'stored');
    } catch (error) {
      // Deleted by someone else since the plan: what the restore wanted.
      if (!isAppError(error) || error.code !== 'FILE_NOT_FOUND') throw error;
    }
    return 0;
  }
}

/**
 * A restore that stopped after its safety backup: the failing file's own answer ("nothing was
 * changed") is true of that file only. The answer keeps its code and status, and says what was done:
 * `outcome: "partial"`, the files done so far, and the safety backup that undoes them (running the
 * same restore again does what is left).
 */
function stoppedPartway(error: unknown, operation: AuditOperation): unknown {
  if (!isAppError(error)) return error;
  const { replaced, created, deleted } = operation.counts;
  const done = replaced + created + deleted;
  return new AppError(
    error.code,
    `${error.message.replace(/[.;:]?\s*$/, '')}. The ${operation.scope} restore stopped there, after ${done} of its files ` +
      `(the safety backup ${operation.safetyBackup} undoes them; the same restore again does what is left)`,
    { ...error.extra, outcome: 'partial', safetyBackup: operation.safetyBackup, counts: { ...operation.counts } },
    { cause: error },
  );
}

/** A change as the answer shows it: the live bytes it acts on are part of the plan's ETag, not of the answer. */
const answered = ({ folder, filename, action }: PlannedChange): ScopeChange => ({ folder, filename, action });
