import { useState } from 'preact/hooks';
import { fromEip1193, HeldForApproval } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import { WalletPicker } from '../ui/wallet-picker.tsx';
import type { WalletChoice } from '../wallet/discovery.ts';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';

/**
 * Adds a wallet to the signed-in admin: the new wallet signs the challenge the service issued for
 * its address, which proves it is theirs. It must be another wallet or account than the one signed
 * in: switching accounts in the signed-in wallet would sign this page out.
 */
export function AddWalletDialog({ ctx, onAdded, onClose }: { ctx: ViewContext; onAdded(address: string): void; onClose(): void }) {
  const [signing, setSigning] = useState<WalletChoice>();
  const action = useAction((error) => ctx.session.noticeError(error));
  const me = ctx.signedIn.me;

  const add = (wallet: WalletChoice) => {
    setSigning(wallet);
    void action
      .run(async () => {
        const signer = fromEip1193(wallet.provider);
        const address = await signer.getAddress();
        if (address.toLowerCase() === me.walletAddress.toLowerCase()) {
          throw new Error(`${wallet.name} holds ${address}, the wallet you are signed in with: pick another wallet or account.`);
        }
        // The client asks the service's challenge for the new wallet's address and has that wallet sign it.
        const added = await ctx.client.addWallet(me.principal.id, signer);
        onAdded(added.address);
      })
      .finally(() => setSigning(undefined));
  };

  // A policy may hold the new wallet (wallet.add): it is added once enough admins approve.
  if (action.error instanceof HeldForApproval) return <NeedsApprovalDialog ctx={ctx} proposal={action.error.proposal} onClose={onClose} />;
  return (
    <ConfirmDialog title="Add a wallet" confirmLabel="Close" closeOnly busy={action.busy} onConfirm={onClose} onCancel={onClose}>
      <p>
        A second wallet lets you sign in when the first is lost. The new wallet signs a message that names it and this service; nothing is
        sent on chain. Pick a wallet other than the one you are signed in with.
      </p>
      <WalletPicker busy={signing} action={(wallet) => `Add from ${wallet.name}`} onPick={add} />
      {signing && <p aria-live="polite">Confirm the signature request in {signing.name}.</p>}
      <ProblemNotice error={action.error} title="No wallet added" />
    </ConfirmDialog>
  );
}
