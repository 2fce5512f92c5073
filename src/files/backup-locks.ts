import { AppError } from '../errors/app-error.ts';
import { type BackupLock, type BackupRecord, type Backups, holdsAt } from '../model/backups.ts';
import type { Channel } from '../model/channels.ts';
import { parseBackupTimestamp } from '../time/backup-timestamp.ts';
import { formatRfc3339 } from '../time/rfc3339.ts';
import type { Actor, AuditTrail } from './audit-trail.ts';
import { backupLocked, type LockAuthority, type LockChange, nextLock } from './backup-lock-rules.ts';

/** Who acts on a lock, and what their standing lets them lift (backup-lock-rules.ts). */
export interface LockActor extends Actor {
  authority: LockAuthority;
}

export interface BackupLocksDeps {
  catalog: Backups;
  audit: AuditTrail;
  /** BACKUP_LOCK_MAX_DAYS. */
  maxDays: number;
  now?: () => number;
}

/** Attempts of a lock change that found the lock changed in between (another admin, another instance). */
const ATTEMPTS = 5;

/**
 * Deleting a backup and changing its lock (docs/backup-locks.md). Each method takes everything it
 * needs as plain arguments (the channel, who acts with their standing, the backup's timestamp, the
 * change), so that what an HTTP route or the CLI asks can as well be run later from a stored request.
 */
export class BackupLocks {
  private readonly now: () => number;
  constructor(private readonly deps: BackupLocksDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * Removes the backup's row, the named instant, and nothing else: the versions it named fall to
   * retention's rules. BACKUP_LOCKED while it is locked: a legal hold, or a lock before its date;
   * `bypassGovernance` (the operator's CLI only) lets a governance lock, never a compliance lock
   * nor a legal hold, give way. BACKUP_NOT_FOUND when there is none (a repeated delete).
   */
  async delete(channel: Channel, actor: LockActor, timestamp: string, options: { bypassGovernance?: boolean } = {}): Promise<void> {
    const { catalog, audit } = this.deps;
    return audit.around(channel, actor, 'backup.delete', { backupTimestamp: timestamp }, async (entryOf) => {
      parseBackupTimestamp(timestamp);
      if (options.bypassGovernance === true && actor.authority !== 'operator') {
        throw new AppError('OWNER_REQUIRED', "Only the operator's CLI bypasses a governance lock; an owner lifts it first");
      }
      const now = this.now();
      const before = await catalog.getBackup(channel.id, timestamp);
      const details = { change: { before: before === undefined ? null : lockRecord(before), after: null } };
      const outcome = await catalog.deleteBackup(
        channel.id,
        timestamp,
        { now, bypassGovernance: options.bypassGovernance === true },
        entryOf(details),
      );
      if (outcome === 'missing') throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
      if (outcome === 'locked') throw backupLocked(timestamp, (await catalog.getBackup(channel.id, timestamp))?.lock ?? null, now);
      return { value: undefined, details, recorded: true };
    });
  }

  /**
   * What `change` would make of the backup's lock now, refused as `change` would refuse it, with
   * nothing written: a held lock change (docs/approvals.md) is judged when it is proposed, so that
   * nobody is asked to approve what could never run. `undefined` when it would change nothing.
   */
  async preview(
    channel: Channel,
    actor: LockActor,
    timestamp: string,
    change: LockChange,
  ): Promise<{ backup: BackupRecord; next: BackupLock | null } | undefined> {
    parseBackupTimestamp(timestamp);
    const backup = await this.deps.catalog.getBackup(channel.id, timestamp);
    if (backup === undefined) throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
    const next = nextLock(backup.lock, change, actor, this.now(), this.deps.maxDays);
    return next === backup.lock ? undefined : { backup, next };
  }

  /** The backup a delete would remove now, refused (not found, locked) as `delete` would refuse it, with nothing written. */
  async previewDelete(channel: Channel, timestamp: string): Promise<BackupRecord> {
    parseBackupTimestamp(timestamp);
    const backup = await this.deps.catalog.getBackup(channel.id, timestamp);
    if (backup === undefined) throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
    const now = this.now();
    if (holdsAt(backup.lock, now)) throw backupLocked(timestamp, backup.lock, now);
    return backup;
  }

  /**
   * Applies `change` to the backup's lock under the rules of backup-lock-rules.ts and answers the
   * backup as it is then. A change that changes nothing writes nothing (a repeated request is
   * harmless); a refused one changes nothing.
   */
  async change(channel: Channel, actor: LockActor, timestamp: string, change: LockChange): Promise<BackupRecord> {
    const { catalog, audit, maxDays } = this.deps;
    return audit.around(channel, actor, 'backup.lock', { backupTimestamp: timestamp }, async (entryOf) => {
      parseBackupTimestamp(timestamp);
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const backup = await catalog.getBackup(channel.id, timestamp);
        if (backup === undefined) throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
        const now = this.now();
        const next = nextLock(backup.lock, change, actor, now, maxDays);
        if (next === backup.lock) return { value: backup };
        // Compare-and-set: a lock changed since it was read is read again and judged again, never overwritten.
        const after = { ...backup, lock: next };
        const details = { change: { before: lockRecord(backup), after: lockRecord(after) } };
        if (await catalog.setBackupLock(channel.id, timestamp, backup.lock, next, entryOf(details))) {
          return { value: after, details, recorded: true };
        }
      }
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'The lock of this backup kept changing while this change was made; nothing was changed, try again',
        {
          outcome: 'unchanged',
        },
      );
    });
  }
}

/** A backup's lock as the audit log's before/after records it. */
function lockRecord(backup: BackupRecord): Record<string, unknown> {
  return { timestamp: backup.timestamp, lock: lockJson(backup.lock) };
}

function lockJson(lock: BackupLock | null): Record<string, unknown> | null {
  if (lock === null) return null;
  return {
    mode: lock.mode,
    until: lock.until === null ? null : formatRfc3339(lock.until),
    legalHold: lock.legalHold,
    lockedBy: lock.lockedBy,
    lockedAt: formatRfc3339(lock.lockedAt),
  };
}
