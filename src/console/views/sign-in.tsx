import { useState } from 'preact/hooks';
import { LifetimeField } from '../ui/lifetime-field.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { WalletPicker } from '../ui/wallet-picker.tsx';
import { DEFAULT_LIFETIME_SECONDS, type SessionEnd } from '../wallet/console-session.ts';
import type { WalletChoice } from '../wallet/discovery.ts';

interface SignInProps {
  busy: WalletChoice | undefined;
  error: unknown;
  /** What the last sign-out did, shown until the next sign-in. */
  notice?: string | undefined;
  /** The service ended the last session (a suspension, a removal): why, shown until the next sign-in. */
  ended?: SessionEnd | undefined;
  onSignIn(wallet: WalletChoice, lifetimeSeconds: number): void;
}

export function SignInView({ busy, error, notice, ended, onSignIn }: SignInProps) {
  const [lifetime, setLifetime] = useState(DEFAULT_LIFETIME_SECONDS);
  return (
    <section class="sign-in card" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      {ended && <ProblemNotice error={ended.refusal} title={ended.reason} />}
      <p>
        Sign in with the Ethereum wallet your admin account belongs to. The wallet shows the message it signs: it names this site (
        <code>{window.location.host}</code>) and is valid for the time chosen below. Nothing is sent on chain and nothing costs gas.
      </p>
      <LifetimeField value={lifetime} onChange={setLifetime} />
      <WalletPicker busy={busy} action={(wallet) => `Sign in with ${wallet.name}`} onPick={(wallet) => onSignIn(wallet, lifetime)} />
      {busy && <p aria-live="polite">Confirm the signature request in {busy.name}.</p>}
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <ProblemNotice error={error} title="Sign-in failed" />
    </section>
  );
}
