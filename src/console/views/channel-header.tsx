import { ProblemError } from '../../client/index.ts';
import { hrefOf, type Route } from '../routing.ts';
import { ProblemNotice } from '../ui/problem-notice.tsx';
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

/**
 * The channel is none of the admin's (unknown, or not linked to them): the service said so, or,
 * before it answered, the admin's listed channels do not hold it (no tabs and forms flash by).
 */
export function isMissingChannel(ctx: ViewContext, channel: string, load: { data: unknown; error: unknown }): boolean {
  if (load.error instanceof ProblemError && load.error.code === 'CHANNEL_NOT_FOUND') return true;
  return load.data === undefined && load.error === undefined && ctx.isLinkedChannel(channel) === false;
}

/**
 * A channel page for a channel the admin cannot use: the answer and the way back, and none of a
 * channel's tabs, forms or buttons, which would only be refused in turn.
 */
export function MissingChannel({ channel, error }: { channel: string; error: unknown }) {
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <ol>
          <li>
            <a href={hrefOf({ view: 'home' })}>Channels</a>
          </li>
          <li>
            <span aria-current="page">{channel}</span>
          </li>
        </ol>
      </nav>
      <section class="card" aria-labelledby="missing-title">
        <h1 id="missing-title">No such channel</h1>
        <ProblemNotice error={error} />
        <p>
          The link names a channel that does not exist or that your admin account is not linked to.{' '}
          <a href={hrefOf({ view: 'home' })}>Your channels</a>
        </p>
      </section>
    </>
  );
}
