import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';

/**
 * Removing one of an admin's wallets (one's own, or with admins:manage one of an admin within
 * reach), once the editor has read what it ends. The service refuses the last wallet (409
 * LAST_WALLET): the button is disabled then, and should the list be stale, its refusal shows here.
 */
export function RemoveWalletDialog({
  ctx,
  adminId,
  adminName,
  address,
  onRemoved,
  onClose,
}: {
  ctx: ViewContext;
  adminId: string;
  adminName: string;
  address: string;
  onRemoved(message: string): void;
  onClose(): void;
}) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const me = ctx.signedIn.me;
  const own = adminId === me.principal.id;
  const signedInWithIt = own && address.toLowerCase() === me.walletAddress.toLowerCase();
  const confirm = () =>
    action.run(async () => {
      await ctx.client.removeWallet(adminId, address);
      // The service ends that wallet's sessions: this one too when it is the wallet signed in with.
      if (signedInWithIt) {
        void ctx.session.signOut(new Error(`You removed ${address}, the wallet you were signed in with: sign in with another of yours.`));
        return;
      }
      onRemoved(own ? `Wallet ${address} removed: it no longer signs in as you.` : `Wallet ${address} removed from ${adminName}.`);
    });
  return (
    <ConfirmDialog
      title={own ? 'Remove your wallet?' : `Remove a wallet of ${adminName}?`}
      confirmLabel="Remove wallet"
      danger
      busy={action.busy}
      onConfirm={confirm}
      onCancel={onClose}
    >
      <p>
        <code class="wrap">{address}</code> will no longer sign in as {own ? 'you' : adminName}: every message it signed stops working, on
        every instance of the service within a few seconds.
      </p>
      {signedInWithIt && <p>You are signed in with this wallet: the console signs you out once it is removed.</p>}
      <ProblemNotice error={action.error} title="Nothing changed" />
    </ConfirmDialog>
  );
}
