import { hrefOf, type Route } from '../routing.ts';
import type { ViewContext } from './context.ts';

type Tab = 'folders' | 'backups' | 'audit';

/** The channel's name, where the admin is in it, and its sections. */
export function ChannelHeader({
  ctx,
  channel,
  tab,
  trail = [],
}: {
  ctx: ViewContext;
  channel: string;
  tab: Tab;
  trail?: { label: string; route?: Route }[];
}) {
  const tabs: { id: Tab; label: string; route: Route; shown: boolean }[] = [
    { id: 'folders', label: 'Files', route: { view: 'folders', channel }, shown: true },
    { id: 'backups', label: 'Backups', route: { view: 'backups', channel }, shown: true },
    { id: 'audit', label: 'Audit log', route: { view: 'audit', channel, filters: {} }, shown: ctx.can('audit:read') },
  ];
  return (
    <header class="channel-header">
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <ol>
          <li>
            <a href={hrefOf({ view: 'home' })}>Channels</a>
          </li>
          <li>
            <a href={hrefOf({ view: 'folders', channel })}>{ctx.channelName(channel)}</a>
          </li>
          {trail.map((step) => (
            <li key={step.label}>
              {step.route ? <a href={hrefOf(step.route)}>{step.label}</a> : <span aria-current="page">{step.label}</span>}
            </li>
          ))}
        </ol>
      </nav>
      <nav aria-label="Channel sections" class="tabs">
        {tabs
          .filter((t) => t.shown)
          .map((t) => (
            <a
              key={t.id}
              href={hrefOf(t.route)}
              class={t.id === tab ? 'tab tab-current' : 'tab'}
              aria-current={t.id === tab ? 'page' : undefined}
            >
              {t.label}
            </a>
          ))}
      </nav>
    </header>
  );
}
