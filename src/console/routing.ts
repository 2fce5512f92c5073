import { useEffect, useState } from 'preact/hooks';
import type { ProposalStatus } from './approvals/types.ts';

/**
 * Where the admin is, kept in the URL's fragment: a reload, a bookmark or a new sign-in returns to
 * the same view, and the server serves one page for all of them.
 */
export type Route =
  | { view: 'home' }
  | { view: 'folders'; channel: string }
  | { view: 'files'; channel: string; folder: string }
  | { view: 'file'; channel: string; folder: string; filename: string }
  | { view: 'deleted'; channel: string; folder: string }
  | { view: 'backups'; channel: string }
  | { view: 'changes'; channel: string; from: string; to: string | undefined; folder: string | undefined }
  | { view: 'audit'; channel: string; filters: AuditFilters }
  | { view: 'admins' }
  | { view: 'channel-settings' }
  | { view: 'tenant-audit'; filters: TenantAuditFilters }
  /** The tenant's proposals and policy; `id`: one proposal, as a held request links to it; `status`: pending unless given. */
  | { view: 'proposals'; id?: string; status?: ProposalFilter }
  /** The tenant's webhooks and adding one; `id`: one webhook, its actions and its delivery log. */
  | { view: 'webhooks'; id?: string }
  /** The tenant's own off-site copy: its target, how shipping there stands, setting, testing and stopping it. */
  | { view: 'offsite' };

/** The proposals listed: of one status (pending by default), or of any. */
export type ProposalFilter = ProposalStatus | 'any';

const PROPOSAL_FILTERS: readonly string[] = ['pending', 'executed', 'failed', 'invalidated', 'withdrawn', 'expired', 'any'];

export interface AuditFilters {
  action?: string;
  adminId?: string;
  folder?: string;
  filename?: string;
  result?: string;
  /** One folder or channel restore: its own event, its safety backup's and its files'. */
  operationId?: string;
}

const AUDIT_FILTER_NAMES = ['action', 'adminId', 'folder', 'filename', 'result', 'operationId'] as const;

/** The tenant's audit log (GET /api/audit): who acted, on whom, in which channel. */
export interface TenantAuditFilters extends AuditFilters {
  targetAdminId?: string;
  channelId?: string;
}

const TENANT_AUDIT_FILTER_NAMES = [...AUDIT_FILTER_NAMES, 'targetAdminId', 'channelId'] as const;

/** The filters of `names` that the query gives a value. */
function filtersOf<Name extends string>(params: URLSearchParams, names: readonly Name[]): Partial<Record<Name, string>> {
  const filters: Partial<Record<Name, string>> = {};
  for (const name of names) {
    const value = params.get(name);
    if (value) filters[name] = value;
  }
  return filters;
}

/** `#path?filters`, the filters without a value left out. */
function withFilters<Name extends string>(path: string, filters: Partial<Record<Name, string>>, names: readonly Name[]): string {
  const params = new URLSearchParams();
  for (const name of names) {
    const value = filters[name];
    if (value) params.set(name, value);
  }
  const query = params.toString();
  return `${path}${query ? `?${query}` : ''}`;
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?', 2);
  const parts = path
    .split('/')
    .filter((part) => part !== '')
    .map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
  const params = new URLSearchParams(query);
  if (parts[0] === 'admins') return { view: 'admins' };
  if (parts[0] === 'channel-settings') return { view: 'channel-settings' };
  if (parts[0] === 'proposals') {
    const route: Extract<Route, { view: 'proposals' }> = { view: 'proposals' };
    if (parts[1]) route.id = parts[1];
    const status = params.get('status') ?? '';
    if (status !== 'pending' && PROPOSAL_FILTERS.includes(status)) route.status = status as ProposalFilter;
    return route;
  }
  if (parts[0] === 'audit') return { view: 'tenant-audit', filters: filtersOf(params, TENANT_AUDIT_FILTER_NAMES) };
  if (parts[0] === 'webhooks') return parts[1] ? { view: 'webhooks', id: parts[1] } : { view: 'webhooks' };
  if (parts[0] === 'offsite') return { view: 'offsite' };
  if (parts[0] !== 'channels' || parts[1] === undefined) return { view: 'home' };
  const channel = parts[1];
  switch (parts[2]) {
    case 'backups':
      return { view: 'backups', channel };
    case 'changes': {
      const from = params.get('from');
      if (!from) return { view: 'backups', channel };
      return { view: 'changes', channel, from, to: params.get('to') ?? undefined, folder: params.get('folder') ?? undefined };
    }
    case 'audit':
      return { view: 'audit', channel, filters: filtersOf(params, AUDIT_FILTER_NAMES) };
    case 'folders':
      if (parts[3] === undefined) return { view: 'folders', channel };
      if (parts[4] === 'files' && parts[5] !== undefined) return { view: 'file', channel, folder: parts[3], filename: parts[5] };
      if (parts[4] === 'deleted') return { view: 'deleted', channel, folder: parts[3] };
      return { view: 'files', channel, folder: parts[3] };
    default:
      return { view: 'folders', channel };
  }
}

export function hrefOf(route: Route): string {
  const e = encodeURIComponent;
  switch (route.view) {
    case 'home':
      return '#/';
    case 'folders':
      return `#/channels/${e(route.channel)}/folders`;
    case 'files':
      return `#/channels/${e(route.channel)}/folders/${e(route.folder)}`;
    case 'file':
      return `#/channels/${e(route.channel)}/folders/${e(route.folder)}/files/${e(route.filename)}`;
    case 'deleted':
      return `#/channels/${e(route.channel)}/folders/${e(route.folder)}/deleted`;
    case 'backups':
      return `#/channels/${e(route.channel)}/backups`;
    case 'changes': {
      const params = new URLSearchParams({ from: route.from });
      if (route.to) params.set('to', route.to);
      if (route.folder) params.set('folder', route.folder);
      return `#/channels/${e(route.channel)}/changes?${params}`;
    }
    case 'audit':
      return withFilters(`#/channels/${e(route.channel)}/audit`, route.filters, AUDIT_FILTER_NAMES);
    case 'admins':
      return '#/admins';
    case 'channel-settings':
      return '#/channel-settings';
    case 'tenant-audit':
      return withFilters('#/audit', route.filters, TENANT_AUDIT_FILTER_NAMES);
    case 'proposals':
      return `#/proposals${route.id ? `/${e(route.id)}` : ''}${route.status && route.status !== 'pending' ? `?status=${route.status}` : ''}`;
    case 'webhooks':
      return `#/webhooks${route.id ? `/${e(route.id)}` : ''}`;
    case 'offsite':
      return '#/offsite';
  }
}

/** What the page shows: a view of a signed-in admin, or one of the two pages before signing in. */
export type PageView = Route | { view: 'sign-in' } | { view: 'invitation' };

/**
 * The page's title: the view, where it is, then the console ("Backups · demo · wallet-admin"), so
 * that a screen reader, a tab and the browser's history name each view. `channelName` turns a
 * channel's reference in the URL (its id or name) into its name.
 */
export function titleOf(page: PageView, channelName: (ref: string) => string): string {
  return [...placeOf(page, channelName), 'wallet-admin'].join(' · ');
}

function placeOf(page: PageView, channelName: (ref: string) => string): string[] {
  switch (page.view) {
    case 'sign-in':
      return ['Sign in'];
    case 'invitation':
      return ['Invitation'];
    case 'home':
      return ['Home'];
    case 'folders':
      return ['Folders', channelName(page.channel)];
    case 'files':
      return [page.folder, channelName(page.channel)];
    case 'file':
      return [page.filename, page.folder, channelName(page.channel)];
    case 'deleted':
      return ['Deleted files', page.folder, channelName(page.channel)];
    case 'backups':
      return ['Backups', channelName(page.channel)];
    case 'changes':
      return [`Changes since backup ${page.from}`, ...(page.folder ? [page.folder] : []), channelName(page.channel)];
    case 'audit':
      return ['Audit log', channelName(page.channel)];
    case 'admins':
      return ['Admins'];
    case 'channel-settings':
      return ['Channel settings'];
    case 'tenant-audit':
      return ['Tenant log'];
    case 'proposals':
      return [page.id ? `Proposal ${page.id}` : 'Proposals'];
    case 'webhooks':
      return page.id ? [`Webhook ${page.id}`, 'Webhooks'] : ['Webhooks'];
    case 'offsite':
      return ['Off-site copy'];
  }
}

export function navigate(route: Route): void {
  window.location.hash = hrefOf(route);
}

/**
 * A fragment that names an element of the page (`#main`, the skip link's) is a place on the page,
 * not a view: taken for a route it would open the home page.
 */
export function isRouteFragment(hash: string, page: Pick<Document, 'getElementById'>): boolean {
  const id = hash.replace(/^#/, '');
  return id === '' || id.startsWith('/') || page.getElementById(id) === null;
}

/** The current route, updated on every change of the fragment to another view. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = () => {
      if (isRouteFragment(window.location.hash, document)) setRoute(parseRoute(window.location.hash));
    };
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
