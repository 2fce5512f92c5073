import { useState } from 'preact/hooks';
import { hrefOf } from '../routing.ts';
import { FileName } from '../ui/file-name.tsx';
import { formatBytes, shortHash } from '../ui/format.ts';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { messageOf, ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { Time } from '../ui/time.tsx';
import { AdminName } from './admin-name.tsx';
import { ChannelHeader, isMissingChannel, MissingChannel } from './channel-header.tsx';
import type { ViewContext } from './context.ts';
import { FolderTabs } from './folder-tabs.tsx';

/** Files deleted from a folder that can still be brought back, newest deletion per name. */
export function DeletedView({ ctx, channel, folder }: { ctx: ViewContext; channel: string; folder: string }) {
  const deleted = usePagedLoad((cursor) => ctx.client.listDeleted(channel, folder, { limit: 100, cursor }), `${channel}\n${folder}`);
  const [busy, setBusy] = useState<string>();
  const canRestore = ctx.can('files:restore');

  const bringBack = async (filename: string, versionId: string) => {
    setBusy(filename);
    try {
      await ctx.client.restore(channel, folder, filename, { versionId });
      await deleted.reload();
      ctx.announce(`${filename} restored to ${folder}.`);
    } catch (error) {
      ctx.session.noticeError(error);
      ctx.announce(`Could not restore ${filename}: ${messageOf(error)}`);
    } finally {
      setBusy(undefined);
    }
  };

  if (isMissingChannel(ctx, channel, deleted)) return <MissingChannel channel={channel} error={deleted.error} />;
  return (
    <>
      <ChannelHeader
        ctx={ctx}
        channel={channel}
        tab="folders"
        trail={[{ label: folder, route: { view: 'files', channel, folder } }, { label: 'Deleted' }]}
      />
      <section class="card" aria-labelledby="deleted-title">
        <h1 id="deleted-title" class="wrap">
          Deleted from {folder}
        </h1>
        {deleted.data && <FolderTabs channel={channel} folder={folder} current="deleted" />}
        <ProblemNotice error={deleted.error} />
        <PagedTable
          list={deleted}
          label="Deleted files"
          empty={<p>Nothing deleted from this folder can be brought back.</p>}
          loading="Loading…"
          class="deleted-table list-table"
          rowKey={(item) => item.filename}
          columns={[
            {
              header: 'Name',
              rowHeader: true,
              cellClass: 'name-cell',
              cell: (item) => (
                <>
                  <a href={hrefOf({ view: 'file', channel, folder, filename: item.filename })}>
                    <FileName name={item.filename} />
                  </a>
                  <code class="muted block" title={item.sha256}>
                    {shortHash(item.sha256)}
                  </code>
                </>
              ),
            },
            { header: 'Size', class: 'num', cell: (item) => formatBytes(item.size) },
            { header: 'Deleted', cellClass: 'time-cell', cell: (item) => <Time value={item.deletedAt} /> },
            {
              header: 'By',
              class: 'wide-only',
              cell: (item) => <AdminName id={item.deletedBy} name={item.deletedByName} none="CLI" />,
            },
          ]}
          actions={(item) =>
            canRestore && (
              <RowButton
                label="Restore"
                pendingLabel="Restoring…"
                pending={busy === item.filename}
                disabled={busy !== undefined}
                onClick={() => bringBack(item.filename, item.versionId)}
                aria-label={`Restore ${item.filename}`}
              />
            )
          }
          footer={
            !canRestore && (
              <p class="muted" role="note">
                Bringing a file back needs the <code>files:restore</code> permission, which your admin account does not have.
              </p>
            )
          }
        />
      </section>
    </>
  );
}
