import { useMemo, useState } from 'preact/hooks';
import {
  type Admin,
  AUDIT_RESULTS,
  ProblemError,
  TENANT_AUDIT_ACTIONS,
  type TenantAuditEvent,
  type TenantAuditQuery,
} from '../../client/index.ts';
import { hrefOf, navigate, type TenantAuditFilters } from '../routing.ts';
import { ChoiceFilter } from '../ui/choice-filter.tsx';
import { FilePath } from '../ui/file-name.tsx';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { Time } from '../ui/time.tsx';
import { useLoad } from '../ui/use-load.ts';
import { AdminName, noAdmin } from './admin-name.tsx';
import { BackupOrVersion, operationSummary } from './audit-event-parts.tsx';
import { IntentsMarker } from './audit-intents.tsx';
import { ChangeSummary } from './change-summary.tsx';
import type { ViewContext } from './context.ts';
import { VerifyLog } from './verify-log.tsx';

/** docs/administration.md's administration events, then the channels' own. */

/** As many admins as the log names by name; one beyond them is named by id. */
const NAMED_ADMINS = 1000;

/**
 * The admins the caller may list, for the names of those an event acted on (events name who acted,
 * not whom) and for the filters' choices. Only with admins:read; without it, undefined: ids stay ids.
 */
function useListedAdmins(ctx: ViewContext): readonly Admin[] | undefined {
  const readsAdmins = ctx.can('admins:read');
  const admins = useLoad(
    () => (readsAdmins ? ctx.client.listAdmins({ limit: NAMED_ADMINS }) : Promise.resolve(undefined)),
    `admin-names\n${readsAdmins}`,
  );
  // Until they are listed, none: the filters offer "Any" (and the value of the URL) rather than an id to type.
  return readsAdmins ? (admins.data?.items ?? []) : undefined;
}

/**
 * The tenant's audit log, newest first: who changed which admin, wallet, invitation or channel, and
 * the record before and after; filtered by action, who acted, on whom, channel, file and result (in the URL).
 */
export function TenantAuditView({ ctx, filters }: { ctx: ViewContext; filters: TenantAuditFilters }) {
  const events = usePagedLoad(
    // Values from the URL go to the service as they are: one it does not know comes back as a 400 that says so.
    (cursor) => ctx.client.tenantAudit({ limit: 50, cursor, ...(filters as TenantAuditQuery) }),
    JSON.stringify(filters),
  );
  // The view is mounted anew for other filters (see app.tsx): the form starts from them.
  const [draft, setDraft] = useState<TenantAuditFilters>(filters);
  const set = (name: keyof TenantAuditFilters) => (event: Event) =>
    setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value || undefined });
  const filtered = (more: TenantAuditFilters) => hrefOf({ view: 'tenant-audit', filters: { ...filters, ...more } });
  const admins = useListedAdmins(ctx);
  const adminNames = useMemo(() => new Map(admins?.map((admin) => [admin.id, admin.displayName])), [admins]);
  const adminChoices = admins?.map((admin) => ({ value: admin.id, label: admin.displayName }));
  const channelChoices = (ctx.channels ?? []).map((channel) => ({ value: channel.id, label: channel.name }));
  const filterable = events.data !== undefined || (events.error instanceof ProblemError && events.error.status === 400);

  // The export is an owner's (a sub-admin's part of the log could not be told from a log with entries cut).
  const owner = ctx.signedIn.me.principal.ownerAdminId === 'N/A';
  const nameOf = (id: string) =>
    id === ctx.signedIn.me.principal.id ? ctx.signedIn.me.principal.displayName : (adminNames.get(id) ?? null);

  return (
    <>
      <section class="card" aria-labelledby="tenant-audit-title">
        <h1 id="tenant-audit-title">Tenant audit log</h1>
        <p class="muted">Everything done in the tenant: its admins, wallets, invitations and channels, and the channels' files.</p>
        {filterable && (
          <form
            class="filters"
            aria-label="Filter the audit log"
            onSubmit={(event) => {
              event.preventDefault();
              navigate({ view: 'tenant-audit', filters: draft });
            }}
          >
            <ChoiceFilter label="Action" value={draft.action} choices={TENANT_AUDIT_ACTIONS} onChange={set('action')} />
            <ChoiceFilter label="Result" value={draft.result} choices={AUDIT_RESULTS} onChange={set('result')} />
            <NamedFilter label="Who" value={draft.adminId} choices={adminChoices} placeholder="adm_…" onChange={set('adminId')} />
            <NamedFilter
              label="Whom"
              value={draft.targetAdminId}
              choices={adminChoices}
              placeholder="adm_…"
              onChange={set('targetAdminId')}
            />
            <NamedFilter label="Channel" value={draft.channelId} choices={channelChoices} placeholder="chn_…" onChange={set('channelId')} />
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
              <a class="button" href={hrefOf({ view: 'tenant-audit', filters: {} })}>
                Clear
              </a>
            </div>
          </form>
        )}
        <ProblemNotice error={events.error} />
        <PagedTable
          list={events}
          label="Audit log"
          empty={<p>No event matches.</p>}
          loading="Loading the audit log…"
          class="tenant-audit-table stacked-table"
          rowKey={(event) => event.id}
          columns={[
            { header: 'When', cellClass: 'time-cell', cell: (event) => <Time value={event.time} /> },
            {
              header: 'Action',
              cell: (event) => (
                <>
                  <a href={filtered({ action: event.action })} title="Only events of this action">
                    {event.action}
                  </a>
                  <span class={`badge badge-${event.result} badge-after`}>{event.result}</span>
                  {event.code && <code class="block">{event.code}</code>}
                  {event.intents && <IntentsMarker intents={event.intents} adminName={nameOf} />}
                </>
              ),
            },
            {
              header: 'Who',
              cell: (event) => (
                <AdminName
                  id={event.adminId}
                  name={event.adminName}
                  {...noAdmin(event)}
                  href={event.adminId ? filtered({ adminId: event.adminId }) : undefined}
                  hrefTitle="only this admin's events"
                />
              ),
            },
            {
              header: 'Whom',
              cell: (event) => (
                <AdminName
                  id={event.targetAdminId}
                  name={event.targetAdminId ? (adminNames.get(event.targetAdminId) ?? null) : null}
                  href={event.targetAdminId ? filtered({ targetAdminId: event.targetAdminId }) : undefined}
                  hrefTitle="only the events acting on this admin"
                />
              ),
            },
            {
              header: 'Channel',
              cell: (event) =>
                event.channelId ? (
                  <a href={filtered({ channelId: event.channelId })} title="Only this channel's events">
                    {ctx.channelName(event.channelId)}
                  </a>
                ) : (
                  <span class="muted">—</span>
                ),
            },
            {
              header: 'What',
              cellClass: 'change-cell',
              cell: (event) => (
                <EventWhat
                  event={event}
                  fileHref={event.folder ? filtered({ folder: event.folder, filename: event.filename ?? undefined }) : undefined}
                />
              ),
            },
          ]}
        />
      </section>
      {/* After the log, so that the page's one h1 comes first. */}
      {owner && ctx.can('audit:read') && <VerifyLog ctx={ctx} />}
    </>
  );
}

/**
 * What an event was about: the file (a link to its events) and the backup or version of a file,
 * restore or backup event, as the channel's log names them, a folder or channel restore's summary;
 * an administration event's fields before → after.
 */
function EventWhat({ event, fileHref }: { event: TenantAuditEvent; fileHref: string | undefined }) {
  // A backup's lock or delete says its backup in its change already.
  const source = event.change === null && (event.backupTimestamp || event.at || event.versionId);
  if (!fileHref && !source && !event.operation) return <ChangeSummary change={event.change} action={event.action} />;
  return (
    <>
      {fileHref && event.folder && (
        <a class="block" href={fileHref} title="Only this file's events">
          <FilePath folder={event.folder} filename={event.filename ?? ''} />
        </a>
      )}
      {event.operation && <span class="muted block">{operationSummary(event.operation)}</span>}
      {source && (
        <span class="block">
          <BackupOrVersion event={event} />
        </span>
      )}
      {event.change && <ChangeSummary change={event.change} action={event.action} />}
    </>
  );
}

/**
 * A filter that picks an admin or a channel by name (the value sent is its id). A value that is
 * none of the choices (an id from a link, of an admin since removed) stays offered, by its id;
 * without choices (the caller may not list admins), the id is typed.
 */
function NamedFilter({
  label,
  value,
  choices,
  placeholder,
  onChange,
}: {
  label: string;
  value: string | undefined;
  choices: { value: string; label: string }[] | undefined;
  placeholder: string;
  onChange(event: Event): void;
}) {
  if (choices === undefined) {
    return (
      <label class="field">
        <span>{label} (id)</span>
        <input value={value ?? ''} onInput={onChange} placeholder={placeholder} />
      </label>
    );
  }
  const unknown = value !== undefined && !choices.some((choice) => choice.value === value);
  return (
    <label class="field">
      <span>{label}</span>
      <select value={value ?? ''} onChange={onChange}>
        <option value="">Any</option>
        {choices.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
        {unknown && <option value={value}>{value}</option>}
      </select>
    </label>
  );
}
