import { hrefOf, type Route } from '../routing.ts';
import type { PendingCount } from './pending-proposals.ts';

/** The tenant's pages in the top bar, each only for an admin whose permissions let them use it. */
export function TenantLinks({ can, route, pending }: { can(permission: string): boolean; route: Route; pending: PendingCount }) {
  const links = [
    { view: 'admins', label: 'Admins', needs: 'admins:read' },
    { view: 'channel-settings', label: 'Channel settings', needs: 'channels:manage' },
    { view: 'tenant-audit', label: 'Tenant log', needs: 'audit:read' },
    { view: 'webhooks', label: 'Webhooks', needs: 'webhooks:manage' },
    { view: 'offsite', label: 'Off-site copy', needs: 'offsite:manage' },
    // Every admin may read the proposals of what they can see, and may have to approve some.
    { view: 'proposals', label: 'Proposals', needs: undefined },
  ] as const;
  return (
    <>
      {links
        .filter((link) => link.needs === undefined || can(link.needs))
        .map((link) => (
          <a
            key={link.view}
            class="nav-link"
            href={hrefOf(link.view === 'tenant-audit' ? { view: link.view, filters: {} } : { view: link.view })}
            aria-current={route.view === link.view ? 'page' : undefined}
          >
            {link.label}
            {link.view === 'proposals' && <PendingBadge pending={pending} />}
          </a>
        ))}
    </>
  );
}

/** How many proposals wait for approval, beside the link; nothing when none do. */
function PendingBadge({ pending }: { pending: PendingCount }) {
  if (!pending.count) return null;
  const shown = pending.more ? `${pending.count}+` : String(pending.count);
  return (
    <>
      <span class="nav-badge" aria-hidden="true">
        {shown}
      </span>
      <span class="visually-hidden"> ({shown} pending)</span>
    </>
  );
}
