import { useEffect, useState } from 'preact/hooks';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { DEFAULT_LIFETIME_SECONDS, LIFETIMES } from '../wallet/console-session.ts';
import { injectedWallet, type WalletChoice, watchWallets } from '../wallet/discovery.ts';

interface SignInProps {
  busy: WalletChoice | undefined;
  error: unknown;
  /** What the last sign-out did, shown until the next sign-in. */
  notice?: string | undefined;
  onSignIn(wallet: WalletChoice, lifetimeSeconds: number): void;
}

/** How long wallets get to announce themselves before the page says it found none. */
const DISCOVERY_GRACE_MS = 600;

export function SignInView({ busy, error, notice, onSignIn }: SignInProps) {
  const [wallets, setWallets] = useState<WalletChoice[]>([]);
  const [searching, setSearching] = useState(true);
  const [lifetime, setLifetime] = useState(DEFAULT_LIFETIME_SECONDS);

  useEffect(() => {
    const stop = watchWallets(setWallets);
    const timer = window.setTimeout(() => setSearching(false), DISCOVERY_GRACE_MS);
    return () => {
      stop();
      window.clearTimeout(timer);
    };
  }, []);

  // window.ethereum only when no wallet announced itself: an announcing wallet sets it too.
  const legacy = wallets.length === 0 ? injectedWallet() : undefined;
  const choices = legacy ? [legacy] : wallets;

  return (
    <section class="sign-in card" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <p>
        Sign in with the Ethereum wallet your admin account belongs to. The wallet shows the message it signs: it names this site (
        <code>{window.location.host}</code>) and is valid for the time chosen below. Nothing is sent on chain and nothing costs gas.
      </p>
      <label class="field">
        <span>Signature valid for</span>
        <select value={String(lifetime)} onChange={(event) => setLifetime(Number((event.target as HTMLSelectElement).value))}>
          {LIFETIMES.map((option) => (
            <option key={option.seconds} value={String(option.seconds)}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      {choices.length > 0 ? (
        <ul class="wallet-list">
          {choices.map((wallet) => (
            <li key={wallet.id}>
              <button
                type="button"
                class="button button-primary wallet-button"
                disabled={busy !== undefined}
                onClick={() => onSignIn(wallet, lifetime)}
              >
                {wallet.icon && <img src={wallet.icon} alt="" width={24} height={24} />}
                <span>{busy?.id === wallet.id ? `Waiting for ${wallet.name}…` : `Sign in with ${wallet.name}`}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : searching ? (
        <p aria-live="polite">Looking for browser wallets…</p>
      ) : (
        <div class="notice" role="status">
          <strong>No browser wallet found.</strong>
          <p>
            Install a wallet extension such as MetaMask, Rabby, Coinbase Wallet or Frame (a Ledger or Trezor works through them), unlock it
            and reload this page. For the demo data, import the published development key into the wallet as docs/console.md explains.
          </p>
        </div>
      )}
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
