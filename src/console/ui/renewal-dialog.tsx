import type { Renewal } from '../wallet/console-session.ts';
import { ConfirmDialog } from './confirm-dialog.tsx';

/** The signature ran out mid-session: the admin signs again and the view carries on where it was. */
export function RenewalDialog({ renewal, walletName, errorText }: { renewal: Renewal; walletName: string; errorText: string | undefined }) {
  return (
    <ConfirmDialog
      title="Sign in again"
      confirmLabel={`Sign in with ${walletName}`}
      cancelLabel="Sign out"
      keepsStatusLine
      onConfirm={renewal.confirm}
      onCancel={renewal.decline}
    >
      <p>Your signature expired or was signed out. Sign a new message to carry on: this page and what you were doing stay as they are.</p>
      {errorText && (
        <p class="notice notice-error" role="alert">
          {errorText}
        </p>
      )}
    </ConfirmDialog>
  );
}
