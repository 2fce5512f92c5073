import { useState } from 'preact/hooks';
import { fromEip1193, HeldForApproval } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import { WalletPicker } from '../ui/wallet-picker.tsx';
import { newAccountOf } from '../wallet/accounts.ts';
import type { WalletChoice } from '../wallet/discovery.ts';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';

/**
 * Adds a wallet to the signed-in admin: the new wallet signs the challenge the service issued for
 * its address (typed data, which proves it is theirs and signs nobody in). It may be another
 * account of the very wallet signed in with: the wallet is asked to share one more account with
 * the page, that account signs, and the session stays the signed-in account's.
 */
export function AddWalletDialog({ ctx, onAdded, onClose }: { ctx: ViewContext; onAdded(address: string): void; onClose(): void }) {
  const [signing, setSigning] = useState<WalletChoice>();
  const action = useAction((error) => ctx.session.noticeError(error));
  const me = ctx.signedIn.me;

  const add = (wallet: WalletChoice) => {
    setSigning(wallet);
    void action
      .run(async () => {
        const address = await newAccountOf(wallet, me.walletAddress, wallet.provider === ctx.signedIn.wallet.provider);
        // The client asks the service's challenge for that account and has that account, named, sign it.
        const added = await ctx.client.addWallet(me.principal.id, fromEip1193(wallet.provider, { account: address }));
        onAdded(added.address);
      })
      .finally(() => setSigning(undefined));
  };

  // A policy may hold the new wallet (wallet.add): it is added once enough admins approve.
  if (action.error instanceof HeldForApproval) return <NeedsApprovalDialog ctx={ctx} proposal={action.error.proposal} onClose={onClose} />;
  return (
    <ConfirmDialog title="Add a wallet" confirmLabel="Close" closeOnly busy={action.busy} onConfirm={onClose} onCancel={onClose}>
      <p>
        A second wallet lets you sign in when the first is lost. The new wallet signs a request that names it and this service; it signs
        nobody in, and nothing is sent on chain. Pick another wallet, or the one you are signed in with and then another of its accounts:
        you stay signed in as you are.
      </p>
      <WalletPicker busy={signing} action={(wallet) => `Add from ${wallet.name}`} onPick={add} />
      {signing && <p aria-live="polite">Confirm the requests in {signing.name}.</p>}
      <ProblemNotice error={action.error} title="No wallet added" />
    </ConfirmDialog>
  );
}
