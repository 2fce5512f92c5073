import { Fragment } from 'preact';
import { shortAddress } from '../ui/format.ts';

/**
 * Hardhat/Anvil account #0, the demo owner's wallet: its private key is printed in countless
 * tutorials. The service's DEMO_WALLET (src/demo/demo-seed.ts), which the console may not import;
 * test/console/demo-key-banner.unit.test.ts holds the two equal.
 */
export const PUBLISHED_DEMO_WALLET = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/**
 * On every page while the published demo key is signed in: anyone can sign in as this admin, so the
 * console says so, and how to put a wallet of the admin's own in its place.
 */
export function DemoKeyBanner({ walletAddress, adminId }: { walletAddress: string; adminId: string }) {
  if (walletAddress.toLowerCase() !== PUBLISHED_DEMO_WALLET.toLowerCase()) return null;
  return (
    <aside class="notice notice-error demo-key-banner" aria-labelledby="demo-key-title">
      <p>
        <strong id="demo-key-title">This wallet's key is public.</strong> You are signed in with{' '}
        <code title={walletAddress}>{shortAddress(walletAddress)}</code>, Hardhat/Anvil account #0, whose private key is printed in
        countless tutorials: anyone can sign in as you. Use it for the demo only.
      </p>
      <p>
        To replace it, add your own wallet (<a href="#/">Your wallets</a> → <strong>Add a wallet…</strong>), sign in with it and remove this
        one; or, where the service runs, give this admin your wallet:
      </p>
      {/* On a line of its own, broken only between its words on a phone: a command is read and copied whole. */}
      <p class="demo-key-command">
        <code>
          {['wallet-admin', 'admin', 'set-wallet', '--admin', adminId, '--wallet', '0xYOUR_WALLET_ADDRESS'].map((word, i) => (
            <Fragment key={word}>
              {i > 0 && ' '}
              <span class="unbroken">{word}</span>
            </Fragment>
          ))}
        </code>
      </p>
    </aside>
  );
}
