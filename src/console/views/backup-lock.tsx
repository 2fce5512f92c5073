import { useState } from 'preact/hooks';
import { type Backup, type BackupLock, HeldForApproval, ProblemError, type Proposal } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { formatTime } from '../ui/format.ts';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { Time } from '../ui/time.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';

/** A retention lock whose date has passed holds nothing any more (docs/backup-locks.md); it stays shown until changed. */
export function retentionHolds(lock: BackupLock | null, now = Date.now()): boolean {
  return lock?.until != null && Date.parse(lock.until) > now;
}

/** Whether the service refuses to delete the backup now: a legal hold, or a lock before its date. */
function deleteRefused(lock: BackupLock | null): boolean {
  return lock !== null && (lock.legalHold || retentionHolds(lock));
}

/**
 * A backup's Delete… button. While the service would refuse the delete (409 BACKUP_LOCKED), it is
 * disabled and says why beside it, in words a screen reader reads with the button: a button that
 * can only be refused is no offer, and the reason tells the admin what would let it go.
 */
export function DeleteBackupButton({ backup, onClick }: { backup: Backup; onClick(): void }) {
  const label = `Delete backup ${backup.timestamp}`;
  const lock = backup.lock;
  if (!deleteRefused(lock)) return <RowButton label="Delete…" danger onClick={onClick} aria-label={label} />;
  const reasonId = `delete-refused-${backup.timestamp}`;
  const locked = retentionHolds(lock) && lock?.until ? lock.until : undefined;
  return (
    <>
      <button type="button" class="button button-small button-danger" disabled aria-label={label} aria-describedby={reasonId}>
        Delete…
      </button>
      <span id={reasonId} class="muted action-reason">
        Cannot be deleted:{' '}
        {locked && (
          <>
            locked until <Time value={locked} />
          </>
        )}
        {locked && lock?.legalHold && ', and '}
        {lock?.legalHold && 'under legal hold until an owner releases it'}.
      </span>
    </>
  );
}

const MODE_NAME = { governance: 'Governance', compliance: 'Compliance' } as const;

/** A backup's lock as badges: its mode and date (or that the date has passed), and a legal hold. */
export function LockBadges({ lock }: { lock: BackupLock | null }) {
  if (!lock) return <span class="muted">Not locked</span>;
  return (
    <span class="lock-badges">
      {lock.mode && lock.until && (
        <span
          class={`badge ${retentionHolds(lock) ? `badge-lock-${lock.mode}` : 'badge-lock-ended'}`}
          title={lock.mode === 'governance' ? 'An owner may shorten or lift it' : 'Nobody may shorten or lift it before its date'}
        >
          {retentionHolds(lock) ? `${MODE_NAME[lock.mode]} until ` : `${MODE_NAME[lock.mode]} lock ended `}
          <Time value={lock.until} />
        </span>
      )}
      {lock.legalHold && (
        <span class="badge badge-legal-hold" title="Nobody deletes it until an owner releases the hold">
          Legal hold
        </span>
      )}
    </span>
  );
}

/**
 * Runs a lock change or a delete, and tells apart what a policy held (202): `onHeld` gets its proposal,
 * and the change is not reported as done.
 */
export async function heldOr<T>(work: () => Promise<T>, onHeld: (proposal: Proposal) => void): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof HeldForApproval)) throw error;
    onHeld(error.proposal);
    return undefined;
  }
}

interface BackupDialogProps {
  ctx: ViewContext;
  channel: string;
  backup: Backup;
  /** The change was made: what to say in the status line. */
  onDone(message: string): void;
  onHeld(proposal: Proposal): void;
  onClose(): void;
}

/** A day `days` from now, as a date input takes it (the admin's own calendar). */
function dayInput(days: number, from = new Date()): string {
  const day = new Date(from.getFullYear(), from.getMonth(), from.getDate() + days);
  return `${day.getFullYear()}-${String(day.getMonth() + 1).padStart(2, '0')}-${String(day.getDate()).padStart(2, '0')}`;
}

/** The cap the service named when it refused a date too far ahead (LOCK_TOO_LONG's maxDays and latestUntil). */
function capOf(error: unknown): { maxDays: number; latestUntil: string } | undefined {
  if (!(error instanceof ProblemError) || error.code !== 'LOCK_TOO_LONG') return undefined;
  try {
    const { maxDays, latestUntil } = JSON.parse(error.body) as { maxDays?: unknown; latestUntil?: unknown };
    return typeof maxDays === 'number' && typeof latestUntil === 'string' ? { maxDays, latestUntil } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Locks the backup until a date, or extends or changes its lock: governance (an owner may lift it)
 * or compliance (nobody may before the date). The date is capped by the service's setting.
 */
export function LockDialog({ ctx, channel, backup, onDone, onHeld, onClose }: BackupDialogProps) {
  const current = retentionHolds(backup.lock) ? backup.lock : null;
  const [mode, setMode] = useState<'governance' | 'compliance'>(current?.mode ?? 'governance');
  const [day, setDay] = useState(current?.until ? dayInput(0, new Date(current.until)) : dayInput(30));
  const action = useAction((error) => ctx.session.noticeError(error));
  const cap = capOf(action.error);
  const confirm = () =>
    action.run(async () => {
      // The start of the chosen day in the admin's zone, the instant the service keeps.
      const until = new Date(`${day}T00:00`);
      const locked = await heldOr(() => ctx.client.lockBackup(channel, backup.timestamp, { mode, until }), onHeld);
      if (locked) onDone(`Backup ${backup.timestamp} is locked (${mode}) until ${formatTime(until)}.`);
    });
  return (
    <ConfirmDialog title={`Lock backup ${backup.timestamp}`} confirmLabel="Lock" busy={action.busy} onConfirm={confirm} onCancel={onClose}>
      <p>While it is locked, nobody can delete this backup, and retention keeps every file version it needs.</p>
      <fieldset class="fieldset">
        <legend>Mode</legend>
        <label class="field-inline">
          <input
            type="radio"
            name="lock-mode"
            value="governance"
            checked={mode === 'governance'}
            disabled={current?.mode === 'compliance'}
            onChange={() => setMode('governance')}
          />
          <span>
            <strong>Governance</strong>: an owner can shorten or lift it.
          </span>
        </label>
        <label class="field-inline">
          <input type="radio" name="lock-mode" value="compliance" checked={mode === 'compliance'} onChange={() => setMode('compliance')} />
          <span>
            <strong>Compliance</strong>: nobody, not an owner and not the operator, can shorten or lift it before its date. Only a later
            date can be set.
          </span>
        </label>
      </fieldset>
      <label class="field">
        <span>Locked until (the start of that day, your time)</span>
        <input type="date" required min={dayInput(1)} value={day} onInput={(event) => setDay((event.target as HTMLInputElement).value)} />
      </label>
      <p class="muted">
        The service caps how far ahead a lock may go (<code>BACKUP_LOCK_MAX_DAYS</code>, 365 days unless the operator set another), so that
        a stolen key cannot pin the storage for ever.
        {current && ' A lock can be extended; only an owner can shorten a governance lock.'}
      </p>
      {cap && (
        <p class="notice" role="note">
          At most {cap.maxDays} days ahead here: until <Time value={cap.latestUntil} /> at the latest.{' '}
          <button type="button" class="button button-small" onClick={() => setDay(dayInput(0, new Date(cap.latestUntil)))}>
            Use the latest day
          </button>
        </p>
      )}
      <ProblemNotice error={action.error} title="Not locked" />
    </ConfirmDialog>
  );
}

/** Lifts the backup's retention lock (a governance lock before its date: an owner only); a legal hold stays. */
export function UnlockDialog({ ctx, channel, backup, onDone, onHeld, onClose }: BackupDialogProps) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const confirm = () =>
    action.run(async () => {
      const unlocked = await heldOr(() => ctx.client.unlockBackup(channel, backup.timestamp), onHeld);
      if (unlocked) onDone(`The lock of backup ${backup.timestamp} is lifted.`);
    });
  return (
    <ConfirmDialog
      title={`Lift the lock of backup ${backup.timestamp}?`}
      confirmLabel="Lift the lock"
      danger
      busy={action.busy}
      onConfirm={confirm}
      onCancel={onClose}
    >
      <p>
        Once lifted, anyone with <code>backups:delete</code> can delete the backup, and retention removes it by its usual rules.
        {backup.lock?.legalHold && ' Its legal hold stays until it is released.'}
      </p>
      <p class="muted">Only an owner lifts a governance lock before its date; a compliance lock cannot be lifted before its date.</p>
      <ProblemNotice error={action.error} title="The lock stays" />
    </ConfirmDialog>
  );
}

/** Deletes the backup, after saying what goes with it. */
export function DeleteBackupDialog({ ctx, channel, backup, onDone, onHeld, onClose }: BackupDialogProps) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const confirm = () =>
    action.run(async () => {
      const deleted = await heldOr(async () => {
        await ctx.client.deleteBackup(channel, backup.timestamp);
        return true;
      }, onHeld);
      if (deleted) onDone(`Backup ${backup.timestamp} is deleted.`);
    });
  return (
    <ConfirmDialog
      title={`Delete backup ${backup.timestamp}?`}
      confirmLabel="Delete backup"
      danger
      busy={action.busy}
      onConfirm={confirm}
      onCancel={onClose}
    >
      <p>
        The channel can no longer be restored to this backup, nor compared with it. The file versions only this backup kept are removed at
        retention's next run, unless another backup or the versions' own keep time still keeps them. This cannot be undone.
      </p>
      <p class="muted">The files as they are now are not touched.</p>
      <ProblemNotice error={action.error} title="Not deleted" />
    </ConfirmDialog>
  );
}
