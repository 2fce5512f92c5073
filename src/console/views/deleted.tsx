import { useState } from 'preact/hooks';
import type { WalletAdminClient } from '../../client/index.ts';
import { hrefOf } from '../routing.ts';
import { formatBytes, formatTime, shortHash } from '../ui/format.ts';
import { Pager, usePages } from '../ui/pager.tsx';
import { messageOf, ProblemNotice } from '../ui/problem-notice.tsx';
import { useLoad } from '../ui/use-load.ts';
import { ChannelHeader } from './channel-header.tsx';
import type { ViewContext } from './context.ts';
import { FolderTabs } from './folder-tabs.tsx';

type DeletedPage = Awaited<ReturnType<WalletAdminClient['listDeleted']>>;

/** Files deleted from a folder that can still be brought back, newest deletion per name. */
export function DeletedView({ ctx, channel, folder }: { ctx: ViewContext; channel: string; folder: string }) {
  const pages = usePages();
  const deleted = useLoad<DeletedPage>(
    () => ctx.client.listDeleted(channel, folder, { limit: 100, cursor: pages.cursor }),
    `${channel}\n${folder}\n${pages.cursor ?? ''}`,
  );
  const [busy, setBusy] = useState<string>();
  const canRestore = ctx.can('files:restore');

  const bringBack = async (filename: string, versionId: string) => {
    setBusy(filename);
    try {
      await ctx.client.restore(channel, folder, filename, { versionId });
      ctx.announce(`${filename} restored to ${folder}.`);
      deleted.reload();
    } catch (error) {
      ctx.session.noticeError(error);
      ctx.announce(`Could not restore ${filename}: ${messageOf(error)}`);
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <>
      <ChannelHeader
        ctx={ctx}
        channel={channel}
        tab="folders"
        trail={[{ label: folder, route: { view: 'files', channel, folder } }, { label: 'Deleted' }]}
      />
      <section class="card" aria-labelledby="deleted-title">
        <h1 id="deleted-title">Deleted from {folder}</h1>
        <FolderTabs channel={channel} folder={folder} current="deleted" />
        <ProblemNotice error={deleted.error} />
        {deleted.data?.items.length === 0 && <p>Nothing deleted from this folder can be brought back.</p>}
        {deleted.data && deleted.data.items.length > 0 && (
          <div class="table-wrap">
            <table class="table deleted-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col" class="num">
                    Size
                  </th>
                  <th scope="col">Deleted</th>
                  <th scope="col" class="wide-only">
                    By
                  </th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {deleted.data.items.map((item) => (
                  <tr key={item.filename}>
                    <th scope="row" class="name-cell">
                      <a href={hrefOf({ view: 'file', channel, folder, filename: item.filename })}>{item.filename}</a>
                      <code class="muted block" title={item.sha256}>
                        {shortHash(item.sha256)}
                      </code>
                    </th>
                    <td class="num">{formatBytes(item.size)}</td>
                    <td>{formatTime(item.deletedAt)}</td>
                    <td class="wide-only">{item.deletedBy ? <code>{item.deletedBy}</code> : '—'}</td>
                    <td>
                      {canRestore && (
                        <div class="actions">
                          <button
                            type="button"
                            class="button button-small"
                            disabled={busy !== undefined}
                            onClick={() => bringBack(item.filename, item.versionId)}
                            aria-label={`Restore ${item.filename}`}
                          >
                            {busy === item.filename ? 'Restoring…' : 'Restore'}
                          </button>
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {!canRestore && deleted.data && deleted.data.items.length > 0 && (
          <p class="muted" role="note">
            Bringing a file back needs the <code>files:restore</code> permission, which your admin account does not have.
          </p>
        )}
        {deleted.loading && !deleted.data && <p aria-live="polite">Loading…</p>}
        <Pager
          label="Deleted files"
          pageNumber={pages.pageNumber}
          next={deleted.data?.next}
          onNext={() => deleted.data?.next && pages.next(deleted.data.next)}
          onPrevious={pages.previous}
        />
      </section>
    </>
  );
}
