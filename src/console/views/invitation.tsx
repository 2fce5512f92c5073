import { useState } from 'preact/hooks';
import { type InvitationPreview, ProblemError, previewInvitation } from '../../client/index.ts';
import { shortAddress } from '../ui/format.ts';
import { LifetimeField } from '../ui/lifetime-field.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { Time } from '../ui/time.tsx';
import { useAction } from '../ui/use-action.ts';
import { useLoad } from '../ui/use-load.ts';
import { WalletPicker } from '../ui/wallet-picker.tsx';
import { type ConsoleSession, DEFAULT_LIFETIME_SECONDS, type SessionState } from '../wallet/console-session.ts';

interface InvitationProps {
  session: ConsoleSession;
  state: Exclude<SessionState, { status: 'signed-in' }>;
  /** From the link's fragment; '' when the link had none. */
  token: string;
  /** The invitee is an admin now, signed in: the console takes over. */
  onAccepted(): void;
}

/**
 * /console/invite#token=…: the invitee signs in with the wallet that is to be theirs (no admin
 * yet), then accepts, and is signed in as the new admin with the channels the invitation grants.
 */
export function InvitationView({ session, state, token, onAccepted }: InvitationProps) {
  const [lifetime, setLifetime] = useState(DEFAULT_LIFETIME_SECONDS);
  const [displayName, setDisplayName] = useState<string>();
  const accepting = useAction(() => undefined);
  // Read before any wallet signs: who invites, and exactly what accepting grants.
  const preview = useLoad(
    () => (token === '' ? Promise.resolve(undefined) : previewInvitation({ baseUrl: window.location.origin }, token)),
    token,
  );
  const invitation = preview.data;
  // The name the inviter suggested, until the invitee types their own.
  const name = displayName ?? invitation?.displayName ?? '';

  if (token === '') {
    return (
      <section class="sign-in card" aria-labelledby="invitation-title">
        <h1 id="invitation-title">Invitation</h1>
        <p class="notice notice-error" role="alert">
          This link carries no invitation: it ends with <code>#token=…</code>. Open the whole link you were sent, or ask for a new one.
        </p>
      </section>
    );
  }

  const accept = () =>
    accepting.run(async () => {
      await session.acceptInvitation(token, name.trim() || undefined);
      onAccepted();
    });

  // A token that opens nothing, or an invitation used, revoked or expired: nothing to sign.
  if (preview.error instanceof ProblemError && (preview.error.status === 404 || preview.error.status === 409)) {
    return (
      <section class="sign-in card" aria-labelledby="invitation-title">
        <h1 id="invitation-title">Invitation</h1>
        <ProblemNotice error={preview.error} title="This invitation cannot be accepted" />
        <p>Ask the admin who invited you for a new link.</p>
      </section>
    );
  }

  return (
    <section class="sign-in card" aria-labelledby="invitation-title">
      <h1 id="invitation-title">You are invited</h1>
      {invitation ? (
        <InvitationGrants invitation={invitation} />
      ) : (
        <>
          <ProblemNotice error={preview.error} title="What this invitation grants could not be read" />
          {preview.loading && <p aria-live="polite">Reading the invitation…</p>}
        </>
      )}
      <p>
        Accepting makes the wallet you sign in with your admin account: you sign in with it from then on. Nothing is sent on chain and
        nothing costs gas.
      </p>
      {state.status === 'invitee' ? (
        <>
          <p>
            Signed in with <code title={state.walletAddress}>{shortAddress(state.walletAddress)}</code> ({state.wallet.name}).
          </p>
          <label class="field">
            <span>Your name, as other admins see it (optional)</span>
            <input value={name} onInput={(event) => setDisplayName((event.target as HTMLInputElement).value)} />
          </label>
          <div class="dialog-actions">
            <button type="button" class="button" disabled={accepting.busy} onClick={() => session.signOut()}>
              Use another wallet
            </button>
            <button type="button" class="button button-primary" disabled={accepting.busy} onClick={accept}>
              {accepting.busy ? 'Accepting…' : 'Accept the invitation'}
            </button>
          </div>
          <ProblemNotice error={accepting.error} title="Not accepted" />
        </>
      ) : (
        <>
          <p>First sign in with the wallet that is to be your admin account.</p>
          <LifetimeField value={lifetime} onChange={setLifetime} />
          <WalletPicker
            busy={state.status === 'signing-in' ? state.wallet : undefined}
            action={(wallet) => `Sign in with ${wallet.name}`}
            onPick={(wallet) => session.signInAsInvitee(wallet, lifetime)}
          />
          {state.status === 'signing-in' && <p aria-live="polite">Confirm the signature request in {state.wallet.name}.</p>}
          <ProblemNotice error={state.status === 'signed-out' ? state.error : undefined} title="Sign-in failed" />
        </>
      )}
    </section>
  );
}

/** Who invites, to which tenant, and what accepting grants: permissions, channels, the role, the wallet it is bound to, until when. */
function InvitationGrants({ invitation }: { invitation: InvitationPreview }) {
  return (
    <>
      <p>
        <strong>{invitation.inviter.displayName}</strong> invites you to administer the tenant <strong>{invitation.tenant.name}</strong> of
        this wallet-admin service.
      </p>
      <dl class="facts" aria-label="What the invitation grants">
        <dt>Invited by</dt>
        <dd>
          <span title={invitation.inviter.id}>{invitation.inviter.displayName}</span>
        </dd>
        <dt>Tenant</dt>
        <dd>
          <span title={invitation.tenant.id}>{invitation.tenant.name}</span>
        </dd>
        <dt>Role</dt>
        <dd>A sub-admin below {invitation.inviter.displayName}, not an owner</dd>
        <dt>Permissions</dt>
        <dd>
          {invitation.permissions.length === 0 ? (
            'None'
          ) : (
            <ul class="chips" aria-label="Permissions granted">
              {invitation.permissions.map((permission) => (
                <li key={permission} class="chip">
                  {permission}
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Channels</dt>
        <dd>
          {invitation.channels.length === 0 ? (
            'None'
          ) : (
            <ul class="chips" aria-label="Channels granted">
              {invitation.channels.map((channel) => (
                <li key={channel.id} class="chip" title={channel.id}>
                  {channel.name}
                </li>
              ))}
            </ul>
          )}
        </dd>
        {invitation.wallet && (
          <>
            <dt>Only for</dt>
            <dd>
              <code class="wrap">{invitation.wallet}</code>: sign in with this wallet to accept
            </dd>
          </>
        )}
        <dt>Valid until</dt>
        <dd>
          <Time value={invitation.expiresAt} />
        </dd>
      </dl>
    </>
  );
}
