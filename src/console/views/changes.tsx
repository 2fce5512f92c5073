import type { WalletAdminClient } from '../../client/index.ts';
import { hrefOf } from '../routing.ts';
import { formatBackupTimestamp, formatBytes, shortHash } from '../ui/format.ts';
import { Pager, usePages } from '../ui/pager.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useLoad } from '../ui/use-load.ts';
import { ChannelHeader } from './channel-header.tsx';
import type { ViewContext } from './context.ts';

type ChangesPage = Awaited<ReturnType<WalletAdminClient['changes']>>;

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
  const pages = usePages();
  const changes = useLoad<ChangesPage>(
    () => ctx.client.changes(channel, { from, to, folder, limit: 100, cursor: pages.cursor }),
    `${channel}\n${from}\n${to ?? ''}\n${folder ?? ''}\n${pages.cursor ?? ''}`,
  );
  const until = to ? `the backup of ${formatBackupTimestamp(to)}` : 'now';
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
          From the backup of {formatBackupTimestamp(from)} (<code>{from}</code>) to {until}.
        </p>
        <ProblemNotice error={changes.error} />
        {changes.data?.items.length === 0 && pages.pageNumber === 1 && <p>Nothing changed.</p>}
        {changes.data && changes.data.items.length > 0 && (
          <div class="table-wrap">
            <table class="table changes-table">
              <thead>
                <tr>
                  <th scope="col">Change</th>
                  <th scope="col">File</th>
                  <th scope="col" class="num">
                    Size
                  </th>
                  <th scope="col" class="wide-only">
                    SHA-256
                  </th>
                </tr>
              </thead>
              <tbody>
                {changes.data.items.map((item) => (
                  <tr key={`${item.folder}/${item.filename}`}>
                    <td>
                      <span class={`badge badge-${item.change}`}>{CHANGE_LABELS[item.change] ?? item.change}</span>
                    </td>
                    <th scope="row" class="name-cell">
                      <a href={hrefOf({ view: 'file', channel, folder: item.folder, filename: item.filename })}>
                        {item.folder}/{item.filename}
                      </a>
                    </th>
                    <td class="num">{formatBytes(item.size)}</td>
                    <td class="wide-only">
                      <code title={item.sha256}>{shortHash(item.sha256)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {changes.loading && !changes.data && <p aria-live="polite">Loading…</p>}
        <Pager
          label="Changes"
          pageNumber={pages.pageNumber}
          next={changes.data?.next}
          onNext={() => changes.data?.next && pages.next(changes.data.next)}
          onPrevious={pages.previous}
        />
      </section>
    </>
  );
}
