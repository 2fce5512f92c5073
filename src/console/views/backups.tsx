import { useState } from 'preact/hooks';
import { hrefOf } from '../routing.ts';
import { formatBackupTimestamp, formatBytes, formatTime } from '../ui/format.ts';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { ChannelHeader } from './channel-header.tsx';
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
      ctx.announce(`Backup ${backup.timestamp} made: ${backup.files} files, ${formatBytes(backup.bytes)}.`);
      backups.pages.reset();
      backups.reload();
    } catch (failure) {
      ctx.session.noticeError(failure);
      setError(failure);
    } finally {
      setCreating(false);
    }
  };

  return (
    <>
      <ChannelHeader ctx={ctx} channel={channel} tab="backups" />
      <section class="card" aria-labelledby="backups-title">
        <div class="section-head">
          <h1 id="backups-title">Backups</h1>
          {ctx.can('backups:create') && (
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
          rowKey={(backup) => backup.timestamp}
          columns={[
            {
              header: 'Backup',
              rowHeader: true,
              cell: (backup) => (
                <>
                  <code>{backup.timestamp}</code>
                  <span class="muted block">{formatBackupTimestamp(backup.timestamp)}</span>
                </>
              ),
            },
            { header: 'Files', class: 'num', cell: (backup) => backup.files },
            { header: 'Size', class: 'num', cell: (backup) => formatBytes(backup.bytes) },
            {
              header: 'Made by',
              class: 'wide-only',
              cell: (backup) => (
                <>
                  {backup.createdBy ? <code>{backup.createdBy}</code> : 'Schedule'}
                  <span class="muted block">{formatTime(backup.createdAt)}</span>
                </>
              ),
            },
          ]}
          actions={(backup) => (
            <>
              <a
                class="button button-small"
                href={hrefOf({ view: 'changes', channel, from: backup.timestamp, to: undefined, folder: undefined })}
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
