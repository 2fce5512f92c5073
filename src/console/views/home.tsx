import { useState } from 'preact/hooks';
import { hrefOf } from '../routing.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { PagedList, usePagedLoad } from '../ui/paged-list.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { Time } from '../ui/time.tsx';
import type { ViewContext } from './context.ts';
import { MyWalletsCard } from './my-wallets.tsx';

/** Who the admin is, and the channels they are linked to. */
export function HomeView({ ctx }: { ctx: ViewContext }) {
  const { principal, walletAddress } = ctx.signedIn.me;
  const channels = usePagedLoad((cursor) => ctx.client.listChannels({ limit: 50, cursor }), 'channels');
  return (
    <>
      <section class="card" aria-labelledby="me-title">
        <h1 id="me-title">Who am I</h1>
        <dl class="facts">
          <dt>Admin</dt>
          <dd>
            {principal.displayName} <code>{principal.id}</code>
          </dd>
          <dt>Wallet</dt>
          <dd>
            <code class="wrap">{walletAddress}</code>
          </dd>
          <dt>Tenant</dt>
          <dd>
            <code>{principal.tenantId}</code>
          </dd>
          <dt>Role</dt>
          <dd>{principal.ownerAdminId === 'N/A' ? 'Owner admin' : `Sub-admin of ${principal.ownerAdminId}`}</dd>
          <dt>Permissions</dt>
          <dd>
            <ul class="chips" aria-label="Permissions">
              {principal.effectivePermissions.map((permission) => (
                <li key={permission} class="chip">
                  {permission}
                </li>
              ))}
            </ul>
          </dd>
          <dt>Features</dt>
          <dd>
            {principal.effectiveFeatures.length === 0 ? (
              'None'
            ) : (
              <ul class="chips" aria-label="Features">
                {principal.effectiveFeatures.map((feature) => (
                  <li key={feature} class="chip">
                    {feature}
                  </li>
                ))}
              </ul>
            )}
          </dd>
        </dl>
      </section>
      <MyWalletsCard ctx={ctx} />
      <SessionsCard ctx={ctx} />
      <section class="card" aria-labelledby="channels-title">
        <h2 id="channels-title">Channels</h2>
        <ProblemNotice error={channels.error} />
        <PagedList
          list={channels}
          label="Channels"
          empty={<p>You are not linked to any channel yet. An owner admin links you to one.</p>}
          loading="Loading channels…"
        >
          {(items) => (
            <ul class="link-list">
              {items.map((channel) => (
                <li key={channel.id}>
                  <a href={hrefOf({ view: 'folders', channel: channel.id })}>
                    <strong>{channel.name}</strong>
                    <span class="muted">
                      <code>{channel.id}</code> · created <Time value={channel.createdAt} />
                    </span>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </PagedList>
      </section>
    </>
  );
}

/** Log out everywhere: for a lost laptop, a leaked message, or a shared machine left signed in. */
function SessionsCard({ ctx }: { ctx: ViewContext }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const name = ctx.signedIn.me.principal.displayName;
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await ctx.session.signOutEverywhere();
    } catch (failure) {
      setError(failure);
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    <section class="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p>
        Every signed message is a credential until it expires. Sign out everywhere ends all of them at once: this page, other browsers, and
        scripts or tools signed in as {name}.
      </p>
      <ProblemNotice error={error} title="Not signed out everywhere" />
      <button type="button" class="button" onClick={() => setAsking(true)}>
        Sign out everywhere…
      </button>
      {asking && (
        <ConfirmDialog
          title="Sign out everywhere?"
          confirmLabel="Sign out everywhere"
          danger
          busy={busy}
          onConfirm={confirm}
          onCancel={() => setAsking(false)}
        >
          <p>
            Every message {name} has signed stops working now, on every instance of the service: in every browser, script and tool. Files
            and settings are not touched. You sign in again with your wallet afterwards.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
