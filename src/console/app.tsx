import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { useRoute } from './routing.ts';
import { formatClock, shortAddress } from './ui/format.ts';
import { messageOf } from './ui/problem-notice.tsx';
import { RenewalDialog } from './ui/renewal-dialog.tsx';
import { AuditView } from './views/audit.tsx';
import { BackupsView } from './views/backups.tsx';
import { ChangesView } from './views/changes.tsx';
import type { ViewContext } from './views/context.ts';
import { DeletedView } from './views/deleted.tsx';
import { FileView } from './views/file.tsx';
import { FilesView } from './views/files.tsx';
import { FoldersView } from './views/folders.tsx';
import { HomeView } from './views/home.tsx';
import { SignInView } from './views/sign-in.tsx';
import type { ConsoleSession, SessionState, SignedIn } from './wallet/console-session.ts';

interface Status {
  message: string;
  action?: { label: string; run(): void };
}

export function App({ session }: { session: ConsoleSession }) {
  const [state, setState] = useState<SessionState>(session.state);
  useEffect(() => session.subscribe(setState), [session]);

  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="#/">
          wallet-admin
        </a>
        {state.status === 'signed-in' && (
          <div class="identity">
            <span class="identity-who" title={state.me.walletAddress}>
              {state.me.principal.displayName} · <code>{shortAddress(state.me.walletAddress)}</code>
            </span>
            {state.expiresAt && <span class="muted identity-until">signed in until {formatClock(state.expiresAt)}</span>}
            <button type="button" class="button button-small" onClick={() => session.signOut()}>
              Sign out
            </button>
          </div>
        )}
      </header>
      <main id="main" tabIndex={-1}>
        {state.status === 'signed-in' ? (
          <SignedInConsole session={session} signedIn={state} />
        ) : (
          <SignInView
            busy={state.status === 'signing-in' ? state.wallet : undefined}
            error={state.status === 'signed-out' ? state.error : undefined}
            notice={state.status === 'signed-out' ? state.notice : undefined}
            onSignIn={(wallet, lifetime) => session.signIn(wallet, lifetime)}
          />
        )}
      </main>
    </>
  );
}

/** The views of a signed-in admin; it stays mounted while a signature is renewed, so nothing is lost. */
function SignedInConsole({ session, signedIn }: { session: ConsoleSession; signedIn: SignedIn }) {
  const route = useRoute();
  const [status, setStatus] = useState<Status>();
  const [channelNames, setChannelNames] = useState<Map<string, string>>(new Map());
  const { client, me } = signedIn;

  useEffect(() => {
    client.listChannels({ limit: 1000 }).then(
      (page) => setChannelNames(new Map(page.items.map((channel) => [channel.id, channel.name]))),
      () => undefined,
    );
  }, [client]);

  const announce = useCallback((message: string, action?: Status['action']) => setStatus({ message, action }), []);
  const permissions = me.principal.effectivePermissions;
  const ctx = useMemo<ViewContext>(
    () => ({
      client,
      session,
      signedIn,
      can: (permission) => permissions.includes(permission),
      channelName: (id) => channelNames.get(id) ?? id,
      announce,
    }),
    [client, session, signedIn, permissions, channelNames, announce],
  );

  return (
    <>
      <div class="status" role="status" aria-live="polite">
        {status && (
          <p class="status-line">
            <span>{status.message}</span>
            {status.action && (
              <button
                type="button"
                class="button button-small"
                onClick={() => {
                  const action = status.action;
                  setStatus({ message: 'Working…' });
                  action?.run();
                }}
              >
                {status.action.label}
              </button>
            )}
            <button type="button" class="button button-small button-quiet" aria-label="Dismiss" onClick={() => setStatus(undefined)}>
              ×
            </button>
          </p>
        )}
      </div>
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
      {signedIn.renewal && (
        <RenewalDialog
          renewal={signedIn.renewal}
          walletName={signedIn.wallet.name}
          errorText={signedIn.renewal.error ? messageOf(signedIn.renewal.error) : undefined}
        />
      )}
    </>
  );
}
