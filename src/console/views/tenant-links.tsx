import { hrefOf, type Route } from '../routing.ts';

/** The tenant's pages in the top bar, each only for an admin whose permissions let them use it. */
export function TenantLinks({ can, route }: { can(permission: string): boolean; route: Route }) {
  const links = [
    { view: 'admins', label: 'Admins', needs: 'admins:read' },
    { view: 'channel-settings', label: 'Channel settings', needs: 'channels:manage' },
    { view: 'tenant-audit', label: 'Tenant log', needs: 'audit:read' },
  ] as const;
  return (
    <>
      {links
        .filter((link) => can(link.needs))
        .map((link) => (
          <a
            key={link.view}
            class="nav-link"
            href={hrefOf(link.view === 'tenant-audit' ? { view: link.view, filters: {} } : { view: link.view })}
            aria-current={route.view === link.view ? 'page' : undefined}
          >
            {link.label}
          </a>
        ))}
    </>
  );
}
