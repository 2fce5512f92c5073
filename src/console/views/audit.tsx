import { useState } from 'preact/hooks';
import type { AuditEvent, AuditQuery } from '../../client/index.ts';
import { type AuditFilters, hrefOf, navigate } from '../routing.ts';
import { formatTime } from '../ui/format.ts';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { ChannelHeader } from './channel-header.tsx';
import type { ViewContext } from './context.ts';

const ACTIONS = ['upload', 'delete', 'backup', 'restore'];
const RESULTS = ['ok', 'refused', 'failed'];

/**
 * The channel's audit log, newest first, filtered by action, result, admin, file and operation
 * (one folder or channel restore with everything it did); the filters live in the URL.
 */
export function AuditView({ ctx, channel, filters }: { ctx: ViewContext; channel: string; filters: AuditFilters }) {
  const events = usePagedLoad(
    // Values from the URL go to the service as they are: one it does not know comes back as a 400 that says so.
    (cursor) => ctx.client.listAudit(channel, { limit: 50, cursor, ...(filters as AuditQuery) }),
    `${channel}\n${JSON.stringify(filters)}`,
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
        {filters.operationId && (
          <p class="muted" role="note">
            One restore of a folder or channel: its own event, the backup it took first and every file it restored or deleted (
            <code>{filters.operationId}</code>).
          </p>
        )}
        <ProblemNotice error={events.error} />
        <PagedTable
          list={events}
          label="Audit log"
          empty={<p>No event matches.</p>}
          loading="Loading the audit log…"
          class="audit-table"
          rowKey={(event) => event.id}
          columns={[
            { header: 'When', cell: (event) => formatTime(event.time) },
            {
              header: 'Action',
              cell: (event) => (
                <>
                  {event.operationId && !filters.operationId ? (
                    <a
                      href={hrefOf({ view: 'audit', channel, filters: { operationId: event.operationId } })}
                      title="Everything this folder or channel restore did"
                    >
                      {event.action}
                    </a>
                  ) : (
                    event.action
                  )}
                  {event.operation && <span class="muted block">{operationSummary(event.operation)}</span>}
                </>
              ),
            },
            {
              header: 'Result',
              cell: (event) => (
                <>
                  <span class={`badge badge-${event.result}`}>{event.result}</span>
                  {event.code && <code class="block">{event.code}</code>}
                </>
              ),
            },
            {
              header: 'File',
              cellClass: 'wrap',
              cell: (event) =>
                event.folder ? (
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
                ),
            },
            {
              header: 'Admin',
              class: 'wide-only',
              cell: (event) =>
                event.adminId ? (
                  <a
                    href={hrefOf({ view: 'audit', channel, filters: { ...filters, adminId: event.adminId } })}
                    title="Only this admin's events"
                  >
                    <code>{event.adminId}</code>
                  </a>
                ) : (
                  '—'
                ),
            },
            {
              header: 'From',
              class: 'wide-only',
              cell: (event) =>
                event.backupTimestamp ? `backup ${event.backupTimestamp}` : event.versionId ? <code>{event.versionId}</code> : '—',
            },
          ]}
        />
      </section>
    </>
  );
}

/** A folder or channel restore's own event in a few words: its scope and what it did. */
function operationSummary(operation: NonNullable<AuditEvent['operation']>): string {
  const { counts } = operation;
  const done = (
    [
      [counts.replaced, 'replaced'],
      [counts.created, 'brought back'],
      [counts.deleted, 'deleted'],
      [counts.failed, 'failed'],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, what]) => `${n} ${what}`);
  const scope = operation.scope === 'channel' ? 'whole channel' : 'folder';
  const at = operation.at ? ` at ${operation.at}` : '';
  return `${scope}${at}: ${done.length > 0 ? done.join(', ') : 'nothing to change'}, ${counts.unchanged} unchanged`;
}
