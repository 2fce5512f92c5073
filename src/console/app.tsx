import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type ApprovalsApi, approvalsApi } from './approvals/api.ts';
import { invitationTokenOf, leaveInvitationPage } from './invitation-token.ts';
import { hrefOf, type PageView, type Route, titleOf, useRoute } from './routing.ts';
import { skipToMain } from './ui/focus.ts';
import { formatClock, shortAddress } from './ui/format.ts';
import { messageOf } from './ui/problem-notice.tsx';
import { RenewalDialog } from './ui/renewal-dialog.tsx';
import { type Status, StatusLine, StatusLineContext } from './ui/status-line.tsx';
import { useFocusKeeper, useViewFocus } from './ui/view-focus.ts';
import { AdminsView } from './views/admins.tsx';
import { AuditView } from './views/audit.tsx';
import { BackupsView } from './views/backups.tsx';
import { ChangesView } from './views/changes.tsx';
import { ChannelSettingsView } from './views/channel-settings.tsx';
import { ChannelsMenu } from './views/channels-menu.tsx';
import type { ViewContext } from './views/context.ts';
import { DeletedView } from './views/deleted.tsx';
import { DemoKeyBanner } from './views/demo-key-banner.tsx';
import { FileView } from './views/file.tsx';
import { FilesView } from './views/files.tsx';
import { FoldersView } from './views/folders.tsx';
import { HomeView } from './views/home.tsx';
import { InvitationView } from './views/invitation.tsx';
import { type LinkedChannels, useLinkedChannels } from './views/linked-channels.ts';
import { OffsiteView } from './views/offsite.tsx';
import { type PendingCount, usePendingCount } from './views/pending-proposals.ts';
import { ProposalsView } from './views/proposals.tsx';
import { SignInView } from './views/sign-in.tsx';
import { TenantAuditView } from './views/tenant-audit.tsx';
import { TenantLinks } from './views/tenant-links.tsx';
import { WebhooksView } from './views/webhooks.tsx';
import type { ConsoleSession, SessionState, SignedIn } from './wallet/console-session.ts';

export function App({ session }: { session: ConsoleSession }) {
  const [state, setState] = useState<SessionState>(session.state);
  useEffect(() => session.subscribe(setState), [session]);
  const route = useRoute();
  const [invitationToken, setInvitationToken] = useState(() => invitationTokenOf(window.location));
  const client = state.status === 'signed-in' ? state.client : undefined;
  const linked = useLinkedChannels(client);
  const approvals = useMemo(() => client && approvalsApi(client), [client]);
  const pending = usePendingCount(approvals, hrefOf(route));
  const shown: PageView = state.status === 'signed-in' ? route : { view: invitationToken !== undefined ? 'invitation' : 'sign-in' };
  useFocusKeeper();
  useViewFocus(
    state.status === 'signed-in' ? hrefOf(route) : shown.view,
    titleOf(shown, (ref) => linked.items?.find((channel) => channel.id === ref)?.name ?? ref),
  );

  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: an in-page link, to #main; the click moves focus there itself, the hash router being no place for it. */}
      <a class="skip-link" href="#main" onClick={skipToMain}>
        Skip to content
      </a>
      <header class="topbar">
        <nav class="topnav" aria-label="Console">
          <a class="brand" href="#/">
            wallet-admin
          </a>
          {state.status === 'signed-in' && (
            <>
              <ChannelsMenu linked={linked} current={channelOf(route)} />
              <TenantLinks
                can={(permission) => state.me.principal.effectivePermissions.includes(permission)}
                route={route}
                pending={pending}
              />
            </>
          )}
        </nav>
        {state.status === 'signed-in' && (
          <div class="identity">
            <span class="identity-who" title={state.me.walletAddress}>
              {state.me.principal.displayName} · <code>{shortAddress(state.me.walletAddress)}</code>
            </span>
            {state.expiresAt && (
              <span class="muted identity-until" title={`${state.expiresAt.toISOString()} (UTC)`}>
                signed in until {formatClock(state.expiresAt)}
              </span>
            )}
            <button type="button" class="button button-small" onClick={() => session.signOut()}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {invitationToken !== undefined && state.status !== 'signed-in' ? (
          <InvitationView
            session={session}
            state={state}
            token={invitationToken}
            onAccepted={() => {
              leaveInvitationPage();
              setInvitationToken(undefined);
            }}
          />
        ) : state.status === 'signed-in' ? (
          <SignedInConsole
            session={session}
            signedIn={state}
            route={route}
            linked={linked}
            approvals={approvals ?? approvalsApi(state.client)}
            pending={pending}
          />
        ) : (
          <SignInView
            busy={state.status === 'signing-in' ? state.wallet : undefined}
            error={state.status === 'signed-out' ? state.error : undefined}
            notice={state.status === 'signed-out' ? state.notice : undefined}
            ended={state.status === 'signed-out' ? state.ended : undefined}
            onSignIn={(wallet, lifetime) => session.signIn(wallet, lifetime)}
          />
        )}
      </main>
    </>
  );
}

/** The views of a signed-in admin; it stays mounted while a signature is renewed, so nothing is lost. */
function SignedInConsole({
  session,
  signedIn,
  route,
  linked,
  approvals,
  pending,
}: {
  session: ConsoleSession;
  signedIn: SignedIn;
  route: Route;
  linked: LinkedChannels;
  approvals: ApprovalsApi;
  pending: PendingCount;
}) {
  const { client, me } = signedIn;
  const channelNames = useMemo(() => new Map(linked.items?.map((channel) => [channel.id, channel.name])), [linked]);

  // The status line speaks of the view it was said on: another view starts without it, from its
  // very first paint (clearing it in an effect once the view changed would show it there a moment).
  const where = hrefOf(route);
  const whereNow = useRef(where);
  whereNow.current = where;
  const [said, setSaid] = useState<{ status: Status; where: string }>();
  const setStatus = useCallback((next: Status | undefined) => setSaid(next && { status: next, where: whereNow.current }), []);
  const status = said?.where === where ? said.status : undefined;
  const statusLine = useMemo(() => ({ clear: () => setStatus(undefined) }), []);

  const announce = useCallback((message: string, action?: Status['action']) => setStatus({ message, action }), []);
  const permissions = me.principal.effectivePermissions;
  usePrincipalFollowed(session, where, permissions, announce);
  const ctx = useMemo<ViewContext>(
    () => ({
      client,
      approvals,
      session,
      signedIn,
      can: (permission) => permissions.includes(permission),
      channels: linked.items,
      channelName: (id) => channelNames.get(id) ?? id,
      isLinkedChannel: (ref) =>
        linked.items?.some((channel) => channel.id === ref || channel.name === ref) || (linked.complete ? false : undefined),
      announce,
      channelsChanged: linked.reload,
      proposalsChanged: pending.reload,
    }),
    [client, approvals, session, signedIn, permissions, channelNames, linked, announce, pending.reload],
  );

  return (
    <StatusLineContext.Provider value={statusLine}>
      <DemoKeyBanner walletAddress={me.walletAddress} adminId={me.principal.id} />
      <StatusLine
        status={status}
        onDismiss={() => setStatus(undefined)}
        onAction={() => {
          const action = status?.action;
          setStatus({ message: 'Working…' });
          action?.run();
        }}
      />
      {route.view === 'home' && <HomeView ctx={ctx} />}
      {route.view === 'folders' && <FoldersView key={route.channel} ctx={ctx} channel={route.channel} />}
      {route.view === 'files' && (
        <FilesView key={`${route.channel}/${route.folder}`} ctx={ctx} channel={route.channel} folder={route.folder} />
      )}
      {route.view === 'file' && (
        <FileView
          key={`${route.channel}/${route.folder}/${route.filename}`}
          ctx={ctx}
          channel={route.channel}
          folder={route.folder}
          filename={route.filename}
        />
      )}
      {route.view === 'backups' && <BackupsView key={route.channel} ctx={ctx} channel={route.channel} />}
      {route.view === 'deleted' && (
        <DeletedView key={`${route.channel}/${route.folder}`} ctx={ctx} channel={route.channel} folder={route.folder} />
      )}
      {route.view === 'changes' && (
        <ChangesView
          key={`${route.channel}?${route.from}&${route.to ?? ''}&${route.folder ?? ''}`}
          ctx={ctx}
          channel={route.channel}
          from={route.from}
          to={route.to}
          folder={route.folder}
        />
      )}
      {route.view === 'audit' && (
        <AuditView key={`${route.channel}?${JSON.stringify(route.filters)}`} ctx={ctx} channel={route.channel} filters={route.filters} />
      )}
      {route.view === 'admins' && <AdminsView ctx={ctx} />}
      {route.view === 'channel-settings' && <ChannelSettingsView ctx={ctx} />}
      {route.view === 'proposals' && <ProposalsView key={hrefOf(route)} ctx={ctx} id={route.id} status={route.status} />}
      {route.view === 'tenant-audit' && <TenantAuditView key={JSON.stringify(route.filters)} ctx={ctx} filters={route.filters} />}
      {/* Not keyed by the webhook: a new webhook's secret, shown once, goes along to its page. */}
      {route.view === 'webhooks' && <WebhooksView ctx={ctx} id={route.id} />}
      {route.view === 'offsite' && <OffsiteView ctx={ctx} />}
      {signedIn.renewal && (
        <RenewalDialog
          renewal={signedIn.renewal}
          walletName={signedIn.wallet.name}
          errorText={signedIn.renewal.error ? messageOf(signedIn.renewal.error) : undefined}
        />
      )}
    </StatusLineContext.Provider>
  );
}

/**
 * Who the admin is, kept current: read again at each move to another view (after the sign-in's own
 * read), and by the session whenever a request is refused PERMISSION_DENIED. A change of
 * permissions is said in the status line; the views then offer only what the admin may do now.
 */
function usePrincipalFollowed(
  session: ConsoleSession,
  where: string,
  permissions: readonly string[],
  announce: (message: string) => void,
): void {
  const shownOne = useRef(false);
  useEffect(() => {
    if (shownOne.current) void session.refreshPrincipal();
    shownOne.current = true;
  }, [session, where]);
  const held = useRef(permissions);
  useEffect(() => {
    const before = held.current;
    held.current = permissions;
    const lost = before.filter((permission) => !permissions.includes(permission));
    const gained = permissions.filter((permission) => !before.includes(permission));
    if (lost.length === 0 && gained.length === 0) return;
    const changes = [
      lost.length > 0 && `you no longer hold ${lost.join(', ')}`,
      gained.length > 0 && `you now hold ${gained.join(', ')}`,
    ].filter(Boolean);
    announce(`Your permissions changed: ${changes.join('; ')}.`);
  }, [permissions, announce]);
}

/** The channel a view is of, for the menu to mark; none on the home page and the tenant's pages. */
function channelOf(route: Route): string | undefined {
  return 'channel' in route ? route.channel : undefined;
}
