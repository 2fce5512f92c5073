import { useState } from 'preact/hooks';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { Time } from '../ui/time.tsx';
import { useLoad } from '../ui/use-load.ts';
import { AddWalletDialog } from './add-wallet-dialog.tsx';
import type { ViewContext } from './context.ts';

/** The wallets the signed-in admin can sign in with, and adding one (every admin may, to themselves). */
export function MyWalletsCard({ ctx }: { ctx: ViewContext }) {
  const id = ctx.signedIn.me.principal.id;
  const wallets = useLoad(() => ctx.client.listWallets(id), id);
  const [adding, setAdding] = useState(false);
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
              </span>
            </li>
          ))}
        </ul>
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
    </section>
  );
}
