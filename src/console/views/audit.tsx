import { useState } from 'preact/hooks';
import { AUDIT_RESULTS, type AuditQuery, CHANNEL_AUDIT_ACTIONS, ProblemError } from '../../client/index.ts';
import { type AuditFilters, hrefOf, navigate } from '../routing.ts';
import { ChoiceFilter } from '../ui/choice-filter.tsx';
import { FilePath } from '../ui/file-name.tsx';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { Time } from '../ui/time.tsx';
import { AdminName, noAdmin } from './admin-name.tsx';
import { BackupOrVersion, operationSummary } from './audit-event-parts.tsx';
import { IntentsMarker } from './audit-intents.tsx';
import { ChannelHeader, isMissingChannel, MissingChannel } from './channel-header.tsx';
import type { ViewContext } from './context.ts';

/**
 * The channel's audit log, newest first, filtered by action, result, admin, file and operation
 * (one folder or channel restore with everything it did); the filters live in the URL.
 */
export function AuditView({ ctx, channel, filters }: { ctx: ViewContext; channel: string; filters: AuditFilters }) {
  // The channel's log names admins as its events do; an approver is named when it is the one signed in.
  const me = ctx.signedIn.me.principal;
  const ownName = (id: string) => (id === me.id ? me.displayName : null);
  const events = usePagedLoad(
    // Values from the URL go to the service as they are: one it does not know comes back as a 400 that says so.
    (cursor) => ctx.client.listAudit(channel, { limit: 50, cursor, ...(filters as AuditQuery) }),
    `${channel}\n${JSON.stringify(filters)}`,
  );
  // The view is mounted anew for other filters (see app.tsx): the form and the paging start from them.
  const [draft, setDraft] = useState<AuditFilters>(filters);
  const set = (name: keyof AuditFilters) => (event: Event) =>
    setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value || undefined });

  if (isMissingChannel(ctx, channel, events)) return <MissingChannel channel={channel} error={events.error} />;
  // Filters the service refused (400) are fixed in the form; a refusal of the log itself (403) offers none.
  const filterable = events.data !== undefined || (events.error instanceof ProblemError && events.error.status === 400);
  return (
    <>
      <ChannelHeader ctx={ctx} channel={channel} tab="audit" />
      <section class="card" aria-labelledby="audit-title">
        <h1 id="audit-title">Audit log</h1>
        {filterable && (
          <form
            class="filters"
            aria-label="Filter the audit log"
            onSubmit={(event) => {
              event.preventDefault();
              navigate({ view: 'audit', channel, filters: draft });
            }}
          >
            <ChoiceFilter label="Action" value={draft.action} choices={CHANNEL_AUDIT_ACTIONS} onChange={set('action')} />
            <ChoiceFilter label="Result" value={draft.result} choices={AUDIT_RESULTS} onChange={set('result')} />
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
        )}
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
            { header: 'When', cellClass: 'time-cell', cell: (event) => <Time value={event.time} /> },
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
                  {event.intents && <IntentsMarker intents={event.intents} adminName={ownName} />}
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
              cellClass: 'path-cell',
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
                    <FilePath folder={event.folder} filename={event.filename ?? ''} />
                  </a>
                ) : (
                  <span class="muted">—</span>
                ),
            },
            {
              header: 'Admin',
              cell: (event) => (
                <AdminName
                  id={event.adminId}
                  name={event.adminName}
                  {...noAdmin(event)}
                  href={event.adminId ? hrefOf({ view: 'audit', channel, filters: { ...filters, adminId: event.adminId } }) : undefined}
                  hrefTitle="only this admin's events"
                />
              ),
            },
            { header: 'Backup or version', cell: (event) => <BackupOrVersion event={event} /> },
          ]}
        />
      </section>
    </>
  );
}
