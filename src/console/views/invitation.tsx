import { useState } from 'preact/hooks';
import { shortAddress } from '../ui/format.ts';
import { LifetimeField } from '../ui/lifetime-field.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
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
  const [displayName, setDisplayName] = useState('');
  const accepting = useAction(() => undefined);

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
      await session.acceptInvitation(token, displayName.trim() || undefined);
      onAccepted();
    });

  return (
    <section class="sign-in card" aria-labelledby="invitation-title">
      <h1 id="invitation-title">You are invited</h1>
      <p>
        An admin of this wallet-admin service invited you to administer some of its channels. Accepting makes the wallet you sign in with
        your admin account: you sign in with it from then on. Nothing is sent on chain and nothing costs gas.
      </p>
      {state.status === 'invitee' ? (
        <>
          <p>
            Signed in with <code title={state.walletAddress}>{shortAddress(state.walletAddress)}</code> ({state.wallet.name}).
          </p>
          <label class="field">
            <span>Your name, as other admins see it (optional)</span>
            <input value={displayName} onInput={(event) => setDisplayName((event.target as HTMLInputElement).value)} />
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
