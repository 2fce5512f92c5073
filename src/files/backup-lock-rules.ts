import { AppError } from '../errors/app-error.ts';
import { type BackupLock, holdsAt, LOCK_MODES, type LockMode } from '../model/backups.ts';
import { formatRfc3339, parseInstant } from '../time/rfc3339.ts';

/**
 * Who may do what to a backup's lock (docs/backup-locks.md, "Who lifts what"): plain functions over
 * the stored lock, the change asked for, who asks and the clock, so that the HTTP route, the CLI
 * and a proposal run later all decide alike. Each refusal is an AppError with its stable code.
 */

const DAY_MS = 86_400_000;

/**
 * What the asker may lift: an owner admin, any other admin (who may lock, hold and extend, never
 * lift nor shorten), or the operator's local CLI (an owner's powers over governance locks and legal
 * holds, as S3's bypass-governance; a compliance lock binds it as everyone).
 */
export type LockAuthority = 'owner' | 'admin' | 'operator';

/** A change of a backup's lock: each member given is applied, one left out stays as it is. */
export interface LockChange {
  /** The retention lock to set, extend or shorten; null lifts it. */
  retention?: { mode: LockMode; until: number } | null;
  /** true: put under legal hold; false: release it. */
  legalHold?: boolean;
}

/** The lock after `change`, or the refusal; `current` unchanged (same object) when the change changes nothing. */
export function nextLock(
  current: BackupLock | null,
  change: LockChange,
  asker: { authority: LockAuthority; adminId: string | null },
  now: number,
  maxDays: number,
): BackupLock | null {
  const { retention, legalHold } = change;
  const mayLift = asker.authority !== 'admin';
  if (retention) checkUntil(retention.until, now, maxDays);

  // Only a lock before its date binds: past it, anyone allowed to lock may replace or lift the record of it.
  const active = current !== null && current.mode !== null && current.until !== null && current.until > now ? current : null;
  if (active !== null && retention !== undefined) {
    const until = active.until!;
    const weakens = retention === null || retention.until < until;
    if (active.mode === 'compliance') {
      if (retention === null) {
        throw new AppError(
          'BACKUP_LOCKED',
          `This backup is under a compliance lock until ${formatRfc3339(until)}: nobody lifts it before then`,
          {
            lockUntil: formatRfc3339(until),
          },
        );
      }
      if (weakens || retention.mode !== 'compliance') {
        throw new AppError(
          'LOCK_NOT_SHORTENABLE',
          `A compliance lock is only ever extended: this one holds until ${formatRfc3339(until)}, so mode must stay compliance and until be no earlier`,
          { lockUntil: formatRfc3339(until) },
        );
      }
    } else if (weakens && !mayLift) {
      throw new AppError(
        'OWNER_REQUIRED',
        `Only an owner shortens or lifts a governance lock; this one holds until ${formatRfc3339(until)}`,
        {
          lockUntil: formatRfc3339(until),
        },
      );
    }
  }
  if (legalHold === false && current?.legalHold === true && !mayLift) {
    throw new AppError('OWNER_REQUIRED', 'Only an owner releases a legal hold');
  }

  const mode = retention === undefined ? (current?.mode ?? null) : (retention?.mode ?? null);
  const until = retention === undefined ? (current?.until ?? null) : (retention?.until ?? null);
  const held = legalHold ?? current?.legalHold ?? false;
  if (mode === (current?.mode ?? null) && until === (current?.until ?? null) && held === (current?.legalHold ?? false)) return current;
  if (mode === null && !held) return null;
  return { mode, until, legalHold: held, lockedBy: asker.adminId, lockedAt: now };
}

/** LOCK_IN_PAST unless `until` is after now, LOCK_TOO_LONG beyond BACKUP_LOCK_MAX_DAYS from now. */
function checkUntil(until: number, now: number, maxDays: number): void {
  if (until <= now) {
    throw new AppError('LOCK_IN_PAST', `until must be in the future (got ${formatRfc3339(until)}; it is ${formatRfc3339(now)})`);
  }
  const latest = now + maxDays * DAY_MS;
  if (until > latest) {
    throw new AppError(
      'LOCK_TOO_LONG',
      `until may be at most ${maxDays} days from now (BACKUP_LOCK_MAX_DAYS), ${formatRfc3339(latest)}; got ${formatRfc3339(until)}`,
      { maxDays, latestUntil: formatRfc3339(latest) },
    );
  }
}

/** What a lock request says (the PUT body, the CLI's options), as sent: `until` RFC 3339. */
export interface RequestedLock {
  mode?: string | undefined;
  until?: string | undefined;
  legalHold?: boolean | undefined;
}

/**
 * The change a request asks for, or VALIDATION_FAILED naming what is wrong: mode and until go
 * together; legalHold may come alone or with them (both are applied, or neither); something must
 * be asked. `names` words the members as the asker typed them (the CLI's --until).
 */
export function lockChangeOf(requested: RequestedLock, names: { mode: string; until: string; legalHold: string }): LockChange {
  const { mode, until, legalHold } = requested;
  if (mode === undefined && until === undefined && legalHold === undefined) {
    throw new AppError('VALIDATION_FAILED', `Name ${names.mode} and ${names.until}, or ${names.legalHold}, or all three`);
  }
  if ((mode === undefined) !== (until === undefined)) {
    const [given, missing] = mode === undefined ? [names.until, names.mode] : [names.mode, names.until];
    throw new AppError('VALIDATION_FAILED', `${given} needs ${missing}: a lock has a mode and the date it holds until`);
  }
  const change: LockChange = {};
  if (mode !== undefined && until !== undefined) {
    if (!(LOCK_MODES as readonly string[]).includes(mode)) {
      throw new AppError('VALIDATION_FAILED', `${names.mode} must be ${LOCK_MODES.join(' or ')} (got "${mode.slice(0, 40)}")`);
    }
    change.retention = { mode: mode as LockMode, until: parseInstant(until, names.until) };
  }
  if (legalHold !== undefined) change.legalHold = legalHold;
  return change;
}

/** LOCKED's refusal of a delete, naming what holds the backup. */
export function backupLocked(timestamp: string, lock: BackupLock | null, now: number): AppError {
  const why =
    lock?.legalHold === true
      ? 'it is under legal hold'
      : lock !== null && holdsAt(lock, now)
        ? `it is under a ${lock.mode} lock until ${formatRfc3339(lock.until!)}`
        : 'it is locked';
  return new AppError('BACKUP_LOCKED', `Backup ${timestamp} cannot be deleted: ${why}`, {
    lockMode: lock?.mode ?? null,
    lockUntil: lock?.until == null ? null : formatRfc3339(lock.until),
    legalHold: lock?.legalHold ?? false,
  });
}
