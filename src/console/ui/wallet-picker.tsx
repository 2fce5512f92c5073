import { useEffect, useState } from 'preact/hooks';
import { injectedWallet, type WalletChoice, watchWallets } from '../wallet/discovery.ts';

/** How long wallets get to announce themselves before the page says it found none. */
const DISCOVERY_GRACE_MS = 600;

interface WalletPickerProps {
  /** The wallet whose button was pressed, while it is asked to sign: every button waits. */
  busy: WalletChoice | undefined;
  /** The button's words for a wallet ("Sign in with MetaMask"). */
  action(wallet: WalletChoice): string;
  onPick(wallet: WalletChoice): void;
}

/**
 * The browser's wallets as buttons (EIP-6963 announcements, else window.ethereum), or what to do
 * when there is none: signing in, accepting an invitation and adding a wallet all start here.
 */
export function WalletPicker({ busy, action, onPick }: WalletPickerProps) {
  const [wallets, setWallets] = useState<WalletChoice[]>([]);
  const [searching, setSearching] = useState(true);

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

  if (choices.length > 0) {
    return (
      <ul class="wallet-list">
        {choices.map((wallet) => (
          <li key={wallet.id}>
            <button type="button" class="button button-primary wallet-button" disabled={busy !== undefined} onClick={() => onPick(wallet)}>
              {wallet.icon && <img src={wallet.icon} alt="" width={24} height={24} />}
              <span>{busy?.id === wallet.id ? `Waiting for ${wallet.name}…` : action(wallet)}</span>
            </button>
          </li>
        ))}
      </ul>
    );
  }
  if (searching) return <p aria-live="polite">Looking for browser wallets…</p>;
  return (
    <div class="notice" role="status">
      <strong>No browser wallet found.</strong>
      <p>
        Install a wallet extension such as MetaMask, Rabby, Coinbase Wallet or Frame (a Ledger or Trezor works through them), unlock it and
        reload this page. For the demo data, import the published development key into the wallet as docs/console.md explains.
      </p>
    </div>
  );
}
