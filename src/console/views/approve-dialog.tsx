import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { stateOf } from '../approvals/proposal-state.ts';
import type { Proposal } from '../approvals/types.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import { signIntent } from '../wallet/sign-intent.ts';
import type { ViewContext } from './context.ts';
import { IntentFields } from './intent-fields.tsx';

interface ApproveDialogProps {
  ctx: ViewContext;
  proposal: Proposal;
  title?: string;
  /** Said before the fields (a held request says what happened to it). */
  intro?: ComponentChildren;
  confirmLabel?: string;
  cancelLabel?: string;
  onClose(): void;
  /** The proposal as the service answered the approval. */
  onApproved?(proposal: Proposal): void;
}

/**
 * Approving a proposal: the fields the wallet will show first, then the wallet signs the proposal's
 * own typed data and the intent is posted; the dialog then says where the proposal stands.
 */
export function ApproveDialog({ ctx, proposal, title, intro, confirmLabel, cancelLabel, onClose, onApproved }: ApproveDialogProps) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const [answered, setAnswered] = useState<Proposal>();
  const approve = () =>
    action.run(async () => {
      const wallet = ctx.signedIn.me.walletAddress;
      const signature = await signIntent(ctx.signedIn.wallet.provider, wallet, proposal.typedData);
      const updated = await ctx.approvals.approveProposal(proposal.id, { wallet, signature });
      setAnswered(updated);
      ctx.proposalsChanged();
      onApproved?.(updated);
    });

  if (answered) {
    return (
      <ConfirmDialog title="Approval recorded" confirmLabel="Close" closeOnly onConfirm={onClose} onCancel={onClose}>
        <p class="approval-outcome" role="status">
          {stateOf(answered)}
        </p>
        <p class="muted">{answered.summary}</p>
      </ConfirmDialog>
    );
  }
  return (
    <ConfirmDialog
      title={title ?? 'Approve this proposal?'}
      confirmLabel={confirmLabel ?? `Sign with ${ctx.signedIn.wallet.name}`}
      cancelLabel={cancelLabel}
      busy={action.busy}
      onConfirm={approve}
      onCancel={onClose}
    >
      {intro}
      <p>
        <strong>{proposal.summary}</strong>
      </p>
      <p>
        Your wallet will ask you to sign these fields. Compare them with what it shows, and sign only if they are the same. The signature
        approves this proposal only, once.
      </p>
      <IntentFields typedData={proposal.typedData} channelName={ctx.channelName} />
      <ProblemNotice error={action.error} title="Not approved" />
    </ConfirmDialog>
  );
}
