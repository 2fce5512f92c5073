import { hrefOf } from '../routing.ts';
import { FilePath } from '../ui/file-name.tsx';
import { formatBackupTimestamp, formatBytes, shortHash } from '../ui/format.ts';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { BackupTime } from '../ui/time.tsx';
import { ChannelHeader, isMissingChannel, MissingChannel } from './channel-header.tsx';
import type { ViewContext } from './context.ts';

const CHANGE_LABELS: Record<string, string> = { added: 'Added', changed: 'Changed', deleted: 'Deleted' };

/** What changed in the channel (or one folder) between a backup and another backup or now. */
export function ChangesView({
  ctx,
  channel,
  from,
  to,
  folder,
}: {
  ctx: ViewContext;
  channel: string;
  from: string;
  to?: string;
  folder?: string;
}) {
  const changes = usePagedLoad(
    (cursor) => ctx.client.changes(channel, { from, to, folder, limit: 100, cursor }),
    `${channel}\n${from}\n${to ?? ''}\n${folder ?? ''}`,
  );
  if (isMissingChannel(ctx, channel, changes)) return <MissingChannel channel={channel} error={changes.error} />;
  return (
    <>
      <ChannelHeader
        ctx={ctx}
        channel={channel}
        tab="backups"
        trail={[{ label: 'Backups', route: { view: 'backups', channel } }, { label: 'Changes' }]}
      />
      <section class="card" aria-labelledby="changes-title">
        <h1 id="changes-title">
          Changes{folder ? ` in ${folder}` : ''} since {formatBackupTimestamp(from)}
        </h1>
        <p class="muted">
          From the backup of <BackupTime stamp={from} /> (<code>{from}</code>) to{' '}
          {to ? (
            <>
              the backup of <BackupTime stamp={to} /> (<code>{to}</code>)
            </>
          ) : (
            'now'
          )}
          .
        </p>
        <ProblemNotice error={changes.error} />
        <PagedTable
          list={changes}
          label="Changes"
          empty={<p>Nothing changed.</p>}
          emptyOnFirstPageOnly
          loading="Loading…"
          class="changes-table"
          rowKey={(item) => `${item.folder}/${item.filename}`}
          columns={[
            {
              header: 'Change',
              cell: (item) => <span class={`badge badge-${item.change}`}>{CHANGE_LABELS[item.change] ?? item.change}</span>,
            },
            {
              header: 'File',
              rowHeader: true,
              cellClass: 'name-cell',
              cell: (item) => (
                <a href={hrefOf({ view: 'file', channel, folder: item.folder, filename: item.filename })}>
                  <FilePath folder={item.folder} filename={item.filename} />
                </a>
              ),
            },
            { header: 'Size', class: 'num', cell: (item) => formatBytes(item.size) },
            { header: 'SHA-256', class: 'wide-only', cell: (item) => <code title={item.sha256}>{shortHash(item.sha256)}</code> },
          ]}
        />
      </section>
    </>
  );
}
