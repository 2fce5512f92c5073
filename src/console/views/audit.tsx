import { useState } from 'preact/hooks';
import type { AuditEvent, AuditQuery, Page } from '../../client/index.ts';
import { type AuditFilters, hrefOf, navigate } from '../routing.ts';
import { formatTime } from '../ui/format.ts';
import { Pager, usePages } from '../ui/pager.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useLoad } from '../ui/use-load.ts';
import { ChannelHeader } from './channel-header.tsx';
import type { ViewContext } from './context.ts';

const ACTIONS = ['upload', 'delete', 'backup', 'restore'];
const RESULTS = ['ok', 'refused', 'failed'];

/** The channel's audit log, newest first, filtered by action, result, admin and file; the filters live in the URL. */
export function AuditView({ ctx, channel, filters }: { ctx: ViewContext; channel: string; filters: AuditFilters }) {
  const pages = usePages();
  const filterKey = JSON.stringify(filters);
  const events = useLoad<Page<AuditEvent>>(
    // Values from the URL go to the service as they are: one it does not know comes back as a 400 that says so.
    () => ctx.client.listAudit(channel, { limit: 50, cursor: pages.cursor, ...(filters as AuditQuery) }),
    `${channel}\n${filterKey}\n${pages.cursor ?? ''}`,
  );
  // The view is mounted anew for other filters (see app.tsx): the form and the paging start from them.
  const [draft, setDraft] = useState<AuditFilters>(filters);
  const set = (name: keyof AuditFilters) => (event: Event) =>
    setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value || undefined });

  return (
    <>
      <ChannelHeader ctx={ctx} channel={channel} tab="audit" />
      <section class="card" aria-labelledby="audit-title">
        <h1 id="audit-title">Audit log</h1>
        <form
          class="filters"
          aria-label="Filter the audit log"
          onSubmit={(event) => {
            event.preventDefault();
            navigate({ view: 'audit', channel, filters: draft });
          }}
        >
          <label class="field">
            <span>Action</span>
            <select value={draft.action ?? ''} onChange={set('action')}>
              <option value="">Any</option>
              {ACTIONS.map((action) => (
                <option key={action} value={action}>
                  {action}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Result</span>
            <select value={draft.result ?? ''} onChange={set('result')}>
              <option value="">Any</option>
              {RESULTS.map((result) => (
                <option key={result} value={result}>
                  {result}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Admin id</span>
            <input value={draft.adminId ?? ''} onInput={set('adminId')} placeholder="adm_…" />
          </label>
          <label class="field">
            <span>Folder</span>
            <input value={draft.folder ?? ''} onInput={set('folder')} />
          </label>
          <label class="field">
            <span>File name</span>
            <input value={draft.filename ?? ''} onInput={set('filename')} />
          </label>
          <div class="filter-actions">
            <button type="submit" class="button button-primary">
              Apply filters
            </button>
            <a class="button" href={hrefOf({ view: 'audit', channel, filters: {} })}>
              Clear
            </a>
          </div>
        </form>
        <ProblemNotice error={events.error} />
        {events.data?.items.length === 0 && <p>No event matches.</p>}
        {events.data && events.data.items.length > 0 && (
          <div class="table-wrap">
            <table class="table audit-table">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Action</th>
                  <th scope="col">Result</th>
                  <th scope="col">File</th>
                  <th scope="col" class="wide-only">
                    Admin
                  </th>
                  <th scope="col" class="wide-only">
                    From
                  </th>
                </tr>
              </thead>
              <tbody>
                {events.data.items.map((event) => (
                  <tr key={event.id}>
                    <td>{formatTime(event.time)}</td>
                    <td>{event.action}</td>
                    <td>
                      <span class={`badge badge-${event.result}`}>{event.result}</span>
                      {event.code && <code class="block">{event.code}</code>}
                    </td>
                    <td class="wrap">
                      {event.folder ? (
                        <a
                          href={hrefOf({
                            view: 'audit',
                            channel,
                            filters: { ...filters, folder: event.folder, filename: event.filename ?? undefined },
                          })}
                          title="Only this file's events"
                        >
                          {event.folder}/{event.filename ?? ''}
                        </a>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td class="wide-only">
                      {event.adminId ? (
                        <a
                          href={hrefOf({ view: 'audit', channel, filters: { ...filters, adminId: event.adminId } })}
                          title="Only this admin's events"
                        >
                          <code>{event.adminId}</code>
                        </a>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td class="wide-only">
                      {event.backupTimestamp ? `backup ${event.backupTimestamp}` : event.versionId ? <code>{event.versionId}</code> : '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {events.loading && !events.data && <p aria-live="polite">Loading the audit log…</p>}
        <Pager
          label="Audit log"
          pageNumber={pages.pageNumber}
          next={events.data?.next}
          onNext={() => events.data?.next && pages.next(events.data.next)}
          onPrevious={pages.previous}
        />
      </section>
    </>
  );
}
