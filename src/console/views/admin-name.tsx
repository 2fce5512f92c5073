interface AdminNameProps {
  id: string | null;
  /** Their display name, as the service answered it; null for an admin no longer there. */
  name: string | null;
  /** Said when no admin acted (the CLI, the schedule). */
  none?: string;
  noneTitle?: string;
  /** A link the name leads to (the audit log: this admin's events only). */
  href?: string;
  hrefTitle?: string;
}

/**
 * An admin as people know them, by display name; the id (adm_…), which filters and scripts use,
 * on hover. An admin whose record is gone keeps their id, the only name left.
 */
export function AdminName({ id, name, none = '—', noneTitle, href, hrefTitle }: AdminNameProps) {
  if (id === null) {
    return (
      <span class="muted" title={noneTitle}>
        {none}
      </span>
    );
  }
  const shown = name ?? <code>{id}</code>;
  const title = hrefTitle ? `${id} · ${hrefTitle}` : id;
  return href ? (
    <a href={href} title={title} class="admin-name">
      {shown}
    </a>
  ) : (
    <span title={title} class="admin-name">
      {shown}
    </span>
  );
}

/**
 * Who acted when no admin did, as an entry says it: the operator's CLI by its label
 * (OPERATOR_LABEL), or the service itself (the schedule, retention, the first start's demo).
 */
export function noAdmin(event: { operator: string | null }): { none: string; noneTitle: string } {
  return event.operator === null
    ? { none: 'The service', noneTitle: "The service itself: a scheduled backup, retention, the first start's demo" }
    : {
        none: `Operator: ${event.operator}`,
        noneTitle: "The operator's command line on the service's database (wallet-admin without --url)",
      };
}
