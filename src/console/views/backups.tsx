import { useState } from 'preact/hooks';
import type { Backup, Page } from '../../client/index.ts';
import { hrefOf } from '../routing.ts';
import { formatBackupTimestamp, formatBytes, formatTime } from '../ui/format.ts';
import { Pager, usePages } from '../ui/pager.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useLoad } from '../ui/use-load.ts';
import { ChannelHeader } from './channel-header.tsx';
import type { ViewContext } from './context.ts';
import { ScopeRestoreDialog } from './scope-restore-dialog.tsx';

/** The channel's backups, newest first, and a backup made now. */
export function BackupsView({ ctx, channel }: { ctx: ViewContext; channel: string }) {
  const pages = usePages();
  const backups = useLoad<Page<Backup>>(
    () => ctx.client.listBackups(channel, { limit: 50, cursor: pages.cursor }),
    `${channel}\n${pages.cursor ?? ''}`,
  );
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
      pages.reset();
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
        {backups.data?.items.length === 0 && <p>No backup yet.</p>}
        {backups.data && backups.data.items.length > 0 && (
          <div class="table-wrap">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Backup</th>
                  <th scope="col" class="num">
                    Files
                  </th>
                  <th scope="col" class="num">
                    Size
                  </th>
                  <th scope="col" class="wide-only">
                    Made by
                  </th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {backups.data.items.map((backup) => (
                  <tr key={backup.timestamp}>
                    <th scope="row">
                      <code>{backup.timestamp}</code>
                      <span class="muted block">{formatBackupTimestamp(backup.timestamp)}</span>
                    </th>
                    <td class="num">{backup.files}</td>
                    <td class="num">{formatBytes(backup.bytes)}</td>
                    <td class="wide-only">
                      {backup.createdBy ? <code>{backup.createdBy}</code> : 'Schedule'}
                      <span class="muted block">{formatTime(backup.createdAt)}</span>
                    </td>
                    <td>
                      <div class="actions">
                        <a
                          class="button button-small"
                          href={hrefOf({ view: 'changes', channel, from: backup.timestamp, to: undefined, folder: undefined })}
                        >
                          Changes since
                        </a>
                        {canRestore && (
                          <button
                            type="button"
                            class="button button-small"
                            onClick={() => setRestoring(backup.timestamp)}
                            aria-label={`Restore the channel from backup ${backup.timestamp}`}
                          >
                            Restore…
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {backups.loading && !backups.data && <p aria-live="polite">Loading backups…</p>}
        <Pager
          label="Backups"
          pageNumber={pages.pageNumber}
          next={backups.data?.next}
          onNext={() => backups.data?.next && pages.next(backups.data.next)}
          onPrevious={pages.previous}
        />
      </section>
      {restoring && (
        <ScopeRestoreDialog
          ctx={ctx}
          channel={channel}
          backupTimestamp={restoring}
          onClose={() => setRestoring(undefined)}
          onRestored={() => {
            pages.reset();
            backups.reload();
          }}
        />
      )}
    </>
  );
}
