import { useState } from 'preact/hooks';
import type { Backup } from '../../client/index.ts';
import { hrefOf } from '../routing.ts';
import { formatBytes } from '../ui/format.ts';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { BackupTime } from '../ui/time.tsx';
import { AdminName } from './admin-name.tsx';
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

  const create = async () => {
    setCreating(true);
    setError(undefined);
    try {
      const backup = await ctx.client.createBackup(channel);
      ctx.announce(
        `Backup ${backup.timestamp} made: ${backup.files} ${backup.files === 1 ? 'file' : 'files'}, ${formatBytes(backup.bytes)}.`,
      );
      backups.pages.reset();
      backups.reload();
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
          page, or the whole channel from here.
        </p>
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
            { header: 'Files', class: 'num', cell: (backup) => backup.files },
            { header: 'Size', class: 'num', cell: (backup) => formatBytes(backup.bytes) },
            { header: 'Made by', cell: (backup) => <MadeBy backup={backup} /> },
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
              {canRestore && (
                <RowButton
                  label="Restore…"
                  onClick={() => setRestoring(backup.timestamp)}
                  aria-label={`Restore the channel from backup ${backup.timestamp}`}
                />
              )}
            </>
          )}
        />
      </section>
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
