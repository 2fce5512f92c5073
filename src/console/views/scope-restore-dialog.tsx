import { useEffect, useState } from 'preact/hooks';
import { HeldForApproval, ProblemError, type WalletAdminClient } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { formatBackupTimestamp, formatBytes, upperFirst } from '../ui/format.ts';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';
import { PlanChanges } from './plan-changes.tsx';
import { undoRestoreOffer } from './undo.ts';

type RestorePlan = Awaited<ReturnType<WalletAdminClient['restoreChannel']>>;

interface ScopeRestoreProps {
  ctx: ViewContext;
  channel: string;
  /** A folder restore; the whole channel when absent. */
  folder?: string;
  /** The backup to start from; the admin can pick another. */
  backupTimestamp?: string;
  onClose(): void;
  /** After a restore that changed something. */
  onRestored(): void;
}

type Change = RestorePlan['changes'][number];

const files = (n: number) => `${n} ${n === 1 ? 'file' : 'files'}`;

/**
 * The confirm button says what it does, counted: "Restore 3 files", "Restore 1, delete 2",
 * "Delete 2 files". Replacing and bringing back are both restores; deleting is not.
 */
function confirmLabelOf(changes: readonly Change[]): string {
  const deletes = changes.filter((change) => change.action === 'delete').length;
  const restores = changes.length - deletes;
  if (deletes === 0) return `Restore ${files(restores)}`;
  if (restores === 0) return `Delete ${files(deletes)}`;
  return `Restore ${restores}, delete ${deletes}`;
}

/** What a restore did, in its words: "1 replaced, 1 brought back, 1 deleted". */
function doneOf(changes: readonly Change[]): string {
  const count = (action: Change['action']) => changes.filter((change) => change.action === action).length;
  return (
    [
      [count('replace'), 'replaced'],
      [count('create'), 'brought back'],
      [count('delete'), 'deleted'],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}`)
    .join(', ');
}

/**
 * Restore of a folder or a whole channel in two steps: the plan first (a dry run: nothing changes),
 * then the restore of exactly what the plan lists — sent with If-Match set to the plan's ETag, so
 * that a folder someone changed in between is not restored by a plan the admin did not see: the
 * service refuses (412), and the dialog shows the plan as it is now. The safety backup taken
 * first undoes a restore in one call.
 */
export function ScopeRestoreDialog({ ctx, channel, folder, backupTimestamp, onClose, onRestored }: ScopeRestoreProps) {
  const [backups, setBackups] = useState<string[]>(backupTimestamp ? [backupTimestamp] : []);
  const [chosen, setChosen] = useState(backupTimestamp ?? '');
  const [removeExtra, setRemoveExtra] = useState(false);
  const [plan, setPlan] = useState<RestorePlan>();
  /** The restore was refused because the scope changed after the plan shown before this one. */
  const [replanned, setReplanned] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const scope = folder ? `the folder ${folder}` : 'the whole channel';

  useEffect(() => {
    ctx.client.listBackups(channel, { limit: 100 }).then(
      (page) => {
        const stamps = page.items.map((b) => b.timestamp);
        setBackups(stamps);
        setChosen((current) => current || stamps[0] || '');
      },
      (failure: unknown) => setError(failure),
    );
  }, [ctx.client, channel]);

  const run = (options: { backupTimestamp: string; dryRun: boolean; delete: boolean; ifMatch?: string }) =>
    folder ? ctx.client.restoreFolder(channel, folder, options) : ctx.client.restoreChannel(channel, options);

  const preview = async () => {
    setBusy(true);
    setError(undefined);
    setReplanned(false);
    try {
      setPlan(await run({ backupTimestamp: chosen, dryRun: true, delete: removeExtra }));
    } catch (failure) {
      ctx.session.noticeError(failure);
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  const restore = async (shown: RestorePlan) => {
    setBusy(true);
    setError(undefined);
    try {
      const done = await run({ backupTimestamp: chosen, dryRun: false, delete: removeExtra, ifMatch: shown.etag });
      onClose();
      onRestored();
      const safety = done.safetyBackup;
      const summary = `${upperFirst(scope)} restored from the backup of ${formatBackupTimestamp(chosen)}: ${doneOf(done.changes)}.`;
      ctx.announce(
        safety ? `${summary} Backup ${safety} was taken first.` : summary,
        safety
          ? // The safety backup holds the state before: restoring it, extra files removed, undoes all of it.
            undoRestoreOffer(
              ctx,
              scope,
              () =>
                folder
                  ? ctx.client.restoreFolder(channel, folder, { backupTimestamp: safety, delete: true })
                  : ctx.client.restoreChannel(channel, { backupTimestamp: safety, delete: true }),
              onRestored,
            )
          : undefined,
      );
    } catch (failure) {
      if (failure instanceof ProblemError && failure.code === 'PRECONDITION_FAILED') await replan();
      else {
        ctx.session.noticeError(failure);
        setError(failure);
      }
    } finally {
      setBusy(false);
    }
  };

  /** Nothing was restored: the plan as it stands now replaces the one shown, to be reviewed again. */
  const replan = async () => {
    try {
      setPlan(await run({ backupTimestamp: chosen, dryRun: true, delete: removeExtra }));
      setReplanned(true);
    } catch (failure) {
      ctx.session.noticeError(failure);
      setError(failure);
    }
  };

  // A policy may hold the restore: nothing is restored until enough admins approve its proposal.
  if (error instanceof HeldForApproval) return <NeedsApprovalDialog ctx={ctx} proposal={error.proposal} onClose={onClose} />;
  if (!plan) {
    return (
      <ConfirmDialog
        title={folder ? `Restore the folder ${folder}` : 'Restore the channel'}
        confirmLabel="Preview the restore"
        busy={busy}
        onConfirm={preview}
        onCancel={onClose}
      >
        <p>Brings {scope} back to how it was at a backup. First you see what would change; nothing changes until you confirm.</p>
        <label class="field">
          <span>Backup</span>
          <select value={chosen} onChange={(event) => setChosen((event.target as HTMLSelectElement).value)}>
            {backups.length === 0 && <option value="">No backup yet</option>}
            {backups.map((stamp) => (
              <option key={stamp} value={stamp}>
                {formatBackupTimestamp(stamp)} ({stamp})
              </option>
            ))}
          </select>
        </label>
        <label class="check">
          <input type="checkbox" checked={removeExtra} onChange={(event) => setRemoveExtra((event.target as HTMLInputElement).checked)} />
          <span>Also delete files that did not exist at that backup (they stay restorable as versions)</span>
        </label>
        <ProblemNotice error={error} />
      </ConfirmDialog>
    );
  }

  const count = plan.changes.length;
  return (
    <ConfirmDialog
      title={count === 0 ? 'Nothing to restore' : `Restore ${scope}?`}
      confirmLabel={count === 0 ? 'Close' : confirmLabelOf(plan.changes)}
      busy={busy}
      onConfirm={count === 0 ? onClose : () => restore(plan)}
      onCancel={onClose}
    >
      {replanned && (
        <div class="notice notice-error" role="alert">
          <p>{upperFirst(scope)} changed since the plan you reviewed, so nothing was restored. This is the plan as it stands now.</p>
        </div>
      )}
      <p>
        {count === 0
          ? `${upperFirst(scope)} is as it was at that backup (${plan.unchanged} unchanged).`
          : `Nothing has changed yet. Confirming brings ${scope} back to the backup of ${formatBackupTimestamp(chosen)}; ${plan.unchanged} ${plan.unchanged === 1 ? 'file stays' : 'files stay'} as ${plan.unchanged === 1 ? 'it is' : 'they are'}. A backup of the channel is taken first, so the whole restore can be undone in one step, and every replaced or deleted file is kept as a version.`}
      </p>
      {count > 0 && plan.quota && (
        <p class="notice" data-testid="restore-quota">
          This restore takes the {plan.quota.scope} past its quota ({formatBytes(plan.quota.after.bytes)}
          {plan.quota.maxBytes !== null && <> of {formatBytes(plan.quota.maxBytes)}</>}, {plan.quota.after.files} files
          {plan.quota.maxFiles !== null && <> of {plan.quota.maxFiles}</>}). It runs all the same; uploads are then refused until deletes
          bring usage under it.
        </p>
      )}
      {count > 0 && <PlanChanges changes={plan.changes} />}
      <ProblemNotice error={error} />
    </ConfirmDialog>
  );
}
