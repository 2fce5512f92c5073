import { useState } from 'preact/hooks';
import type { Backup, Proposal } from '../../client/index.ts';
import { hrefOf } from '../routing.ts';
import { dispositionName, saveResponse } from '../ui/download.ts';
import { formatBytes } from '../ui/format.ts';
import { HeldNotice } from '../ui/held-notice.tsx';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { BackupTime } from '../ui/time.tsx';
import { AdminName } from './admin-name.tsx';
import { DeleteBackupButton, DeleteBackupDialog, heldOr, LockBadges, LockDialog, retentionHolds, UnlockDialog } from './backup-lock.tsx';
import { ChannelHeader, isMissingChannel, MissingChannel } from './channel-header.tsx';
import type { ViewContext } from './context.ts';
import { ScopeRestoreDialog } from './scope-restore-dialog.tsx';

/** The channel's backups, newest first, and a backup made now. */
export function BackupsView({ ctx, channel }: { ctx: ViewContext; channel: string }) {
  const backups = usePagedLoad((cursor) => ctx.client.listBackups(channel, { limit: 50, cursor }), channel);
  const [creating, setCreating] = useState(false);
  const [error, setError] = useState<unknown>();
  const [restoring, setRestoring] = useState<string>();
  const canRestore = ctx.can('files:restore');
  const canLock = ctx.can('backups:lock');
  const canDelete = ctx.can('backups:delete');
  /** The lock dialog open, and for which backup. */
  const [dialog, setDialog] = useState<{ kind: 'lock' | 'unlock' | 'delete'; backup: Backup }>();
  /** The backup whose legal hold is being changed. */
  const [holding, setHolding] = useState<string>();
  // The backup whose ZIP is being fetched: one at a time (the service bounds an admin's archives too).
  const [zipping, setZipping] = useState<string>();
  /** The proposal a policy made of the last lock change or delete, instead of doing it. */
  const [held, setHeld] = useState<Proposal>();

  const changed = (message: string) => {
    setDialog(undefined);
    setHeld(undefined);
    void backups.reload().then(() => ctx.announce(message));
  };
  const onHeld = (proposal: Proposal) => {
    setDialog(undefined);
    setHeld(proposal);
  };
  const dialogProps = (backup: Backup) => ({ ctx, channel, backup, onDone: changed, onHeld, onClose: () => setDialog(undefined) });

  // A legal hold is put on at once (it only keeps more); releasing it is refused to all but owners.
  const downloadZip = async (backup: Backup) => {
    setError(undefined);
    setZipping(backup.timestamp);
    try {
      const response = await ctx.client.archiveChannel(channel, { backupTimestamp: backup.timestamp });
      await saveResponse(response, dispositionName(response, `${backup.timestamp}.zip`));
    } catch (failure) {
      ctx.session.noticeError(failure);
      setError(failure);
    } finally {
      setZipping(undefined);
    }
  };

  const toggleHold = async (backup: Backup) => {
    const hold = !backup.lock?.legalHold;
    setHolding(backup.timestamp);
    setError(undefined);
    setHeld(undefined);
    try {
      const done = await heldOr(() => ctx.client.lockBackup(channel, backup.timestamp, { legalHold: hold }), setHeld);
      if (done)
        changed(hold ? `Backup ${backup.timestamp} is under legal hold.` : `The legal hold on backup ${backup.timestamp} is released.`);
    } catch (failure) {
      ctx.session.noticeError(failure);
      setError(failure);
    } finally {
      setHolding(undefined);
    }
  };

  const create = async () => {
    setCreating(true);
    setError(undefined);
    try {
      const backup = await ctx.client.createBackup(channel);
      backups.pages.reset();
      await backups.reload();
      ctx.announce(
        `Backup ${backup.timestamp} made: ${backup.files} ${backup.files === 1 ? 'file' : 'files'}, ${formatBytes(backup.bytes)}.`,
      );
    } catch (failure) {
      ctx.session.noticeError(failure);
      setError(failure);
    } finally {
      setCreating(false);
    }
  };

  if (isMissingChannel(ctx, channel, backups)) return <MissingChannel channel={channel} error={backups.error} />;
  return (
    <>
      <ChannelHeader ctx={ctx} channel={channel} tab="backups" />
      <section class="card" aria-labelledby="backups-title">
        <div class="section-head">
          <h1 id="backups-title">Backups</h1>
          {ctx.can('backups:create') && backups.data && (
            <button type="button" class="button button-primary" onClick={create} disabled={creating}>
              {creating ? 'Backing up…' : 'Back up now'}
            </button>
          )}
        </div>
        <p class="muted">
          A backup keeps every file of every folder as it is at that second. Restore one file from its history, a folder from the folder's
          page, or the whole channel from here. A locked backup cannot be deleted, and retention keeps it, until its date; one under legal
          hold until an owner releases it.
        </p>
        {held && <HeldNotice proposal={held} onDismiss={() => setHeld(undefined)} />}
        <ProblemNotice error={error ?? backups.error} />
        <PagedTable
          list={backups}
          label="Backups"
          empty={<p>No backup yet.</p>}
          loading="Loading backups…"
          class="backups-table"
          rowKey={(backup) => backup.timestamp}
          columns={[
            {
              header: 'Backup',
              rowHeader: true,
              cell: (backup) => (
                <>
                  <BackupTime stamp={backup.timestamp} />
                  <code class="muted block">{backup.timestamp}</code>
                </>
              ),
            },
            {
              header: 'Files',
              class: 'num',
              // The unit shows on a phone only, where the row is a card without the column's header.
              cell: (backup) => (
                <>
                  {backup.files}
                  <span class="count-unit"> {backup.files === 1 ? 'file' : 'files'}</span>
                </>
              ),
            },
            { header: 'Size', class: 'num', cell: (backup) => formatBytes(backup.bytes) },
            { header: 'Made by', cell: (backup) => <MadeBy backup={backup} /> },
            { header: 'Lock', cell: (backup) => <LockBadges lock={backup.lock} /> },
          ]}
          actions={(backup) => (
            <>
              <a
                class="button button-small"
                href={hrefOf({ view: 'changes', channel, from: backup.timestamp, to: undefined, folder: undefined })}
                aria-label={`Changes since backup ${backup.timestamp}`}
              >
                Changes since
              </a>
              <RowButton
                label="ZIP"
                onClick={() => downloadZip(backup)}
                disabled={zipping !== undefined}
                pending={zipping === backup.timestamp}
                pendingLabel="Preparing…"
                aria-label={`Download backup ${backup.timestamp} as a ZIP`}
              />
              {canRestore && (
                <RowButton
                  label="Restore…"
                  onClick={() => setRestoring(backup.timestamp)}
                  aria-label={`Restore the channel from backup ${backup.timestamp}`}
                />
              )}
              {canLock && (
                <>
                  <RowButton
                    label={retentionHolds(backup.lock) ? 'Extend lock…' : 'Lock…'}
                    onClick={() => setDialog({ kind: 'lock', backup })}
                    aria-label={`Lock backup ${backup.timestamp}`}
                  />
                  {retentionHolds(backup.lock) && (
                    <RowButton
                      label="Unlock…"
                      onClick={() => setDialog({ kind: 'unlock', backup })}
                      aria-label={`Unlock backup ${backup.timestamp}`}
                    />
                  )}
                  <RowButton
                    label={backup.lock?.legalHold ? 'Release hold' : 'Legal hold'}
                    onClick={() => toggleHold(backup)}
                    disabled={holding !== undefined}
                    pending={holding === backup.timestamp}
                    pendingLabel="Saving…"
                    aria-label={
                      backup.lock?.legalHold
                        ? `Release the legal hold on backup ${backup.timestamp}`
                        : `Put backup ${backup.timestamp} under legal hold`
                    }
                  />
                </>
              )}
              {canDelete && <DeleteBackupButton backup={backup} onClick={() => setDialog({ kind: 'delete', backup })} />}
            </>
          )}
        />
      </section>
      {dialog?.kind === 'lock' && <LockDialog {...dialogProps(dialog.backup)} />}
      {dialog?.kind === 'unlock' && <UnlockDialog {...dialogProps(dialog.backup)} />}
      {dialog?.kind === 'delete' && <DeleteBackupDialog {...dialogProps(dialog.backup)} />}
      {restoring && (
        <ScopeRestoreDialog
          ctx={ctx}
          channel={channel}
          backupTimestamp={restoring}
          onClose={() => setRestoring(undefined)}
          onRestored={() => {
            backups.pages.reset();
            backups.reload();
          }}
        />
      )}
    </>
  );
}

/**
 * Who or what made a backup, as the service recorded it (its origin): an admin in the console or
 * the API, a restore's safety backup, the schedule, the CLI, the demo data. A backup from before
 * the service recorded this claims nothing it does not know.
 */
function MadeBy({ backup }: { backup: Backup }) {
  const admin = <AdminName id={backup.createdBy} name={backup.createdByName} />;
  const how = (text: string) => <span class="muted block">{text}</span>;
  switch (backup.origin) {
    case 'api':
      return (
        <>
          {admin}
          {how('in the console or the API')}
        </>
      );
    case 'restore':
      return (
        <>
          {admin}
          {how('before a restore, to undo it')}
        </>
      );
    case 'schedule':
      return (
        <>
          Schedule
          {how('every BACKUP_INTERVAL')}
        </>
      );
    case 'cli':
      return (
        <>
          CLI
          {how('wallet-admin backup create')}
        </>
      );
    case 'demo':
      return (
        <>
          Demo data
          {how('the first start of the service')}
        </>
      );
    default:
      return backup.createdBy ? (
        <>
          {admin}
          {how('how: not recorded')}
        </>
      ) : (
        <span class="muted" title="Made before the service recorded who or what makes backups">
          Unknown
        </span>
      );
  }
}
