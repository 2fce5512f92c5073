import { useState } from 'preact/hooks';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { Time } from '../ui/time.tsx';
import { useLoad } from '../ui/use-load.ts';
import { AddWalletDialog } from './add-wallet-dialog.tsx';
import type { ViewContext } from './context.ts';
import { RemoveWalletDialog } from './remove-wallet-dialog.tsx';

/** Why the only wallet cannot go: said beside its disabled button, as the service would (409 LAST_WALLET). */
export const LAST_WALLET_REASON = 'An admin keeps at least one wallet: add another before removing this one.';

/** The wallets the signed-in admin can sign in with, adding one (every admin may, to themselves) and removing one. */
export function MyWalletsCard({ ctx }: { ctx: ViewContext }) {
  const me = ctx.signedIn.me;
  const id = me.principal.id;
  const wallets = useLoad(() => ctx.client.listWallets(id), id);
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<string>();
  const only = wallets.data?.items.length === 1;
  return (
    <section class="card" aria-labelledby="wallets-title">
      <div class="section-head">
        <h2 id="wallets-title">Your wallets</h2>
        <button type="button" class="button" onClick={() => setAdding(true)}>
          Add a wallet…
        </button>
      </div>
      <ProblemNotice error={wallets.error} />
      {wallets.data && (
        <ul class="link-list" aria-label="Your wallets">
          {wallets.data.items.map((wallet) => (
            <li key={wallet.address} class="wallet-row">
              <code class="wrap">{wallet.address}</code>
              <span class="muted">
                added <Time value={wallet.addedAt} />
                {wallet.address.toLowerCase() === me.walletAddress.toLowerCase() && ' · signed in with it'}
              </span>
              <RowButton
                label="Remove…"
                aria-label={`Remove wallet ${wallet.address}`}
                danger
                disabled={only}
                describedBy={only ? 'last-wallet-reason' : undefined}
                onClick={() => setRemoving(wallet.address)}
              />
            </li>
          ))}
        </ul>
      )}
      {only && (
        <p id="last-wallet-reason" class="muted">
          {LAST_WALLET_REASON}
        </p>
      )}
      {adding && (
        <AddWalletDialog
          ctx={ctx}
          onClose={() => setAdding(false)}
          onAdded={(address) => {
            setAdding(false);
            void wallets.reload().then(() => ctx.announce(`Wallet ${address} added: you can sign in with it.`));
          }}
        />
      )}
      {removing && (
        <RemoveWalletDialog
          ctx={ctx}
          adminId={id}
          adminName={me.principal.displayName}
          address={removing}
          onClose={() => setRemoving(undefined)}
          onRemoved={(message) => {
            setRemoving(undefined);
            void wallets.reload().then(() => ctx.announce(message));
          }}
        />
      )}
    </section>
  );
}
