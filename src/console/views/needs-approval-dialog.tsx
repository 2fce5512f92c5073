import { useEffect } from 'preact/hooks';
import type { Proposal } from '../approvals/types.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { HeldNotice } from '../ui/held-notice.tsx';
import { ApproveDialog } from './approve-dialog.tsx';
import type { ViewContext } from './context.ts';

/**
 * What a request the policy held shows instead of "done": the proposal it made, and the proposer's
 * own intent to sign at once (the request itself is no intent), or the proposal to open.
 */
export function NeedsApprovalDialog({ ctx, proposal, onClose }: { ctx: ViewContext; proposal: Proposal; onClose(): void }) {
  // A proposal was just made: the top bar's count of pending ones is asked again.
  useEffect(() => ctx.proposalsChanged(), []);
  const intro = <HeldNotice proposal={proposal} />;
  const eligible = proposal.eligibleAdminIds.includes(ctx.signedIn.me.principal.id);
  if (!eligible) {
    return (
      <ConfirmDialog title="Needs approval" confirmLabel="Close" closeOnly onConfirm={onClose} onCancel={onClose}>
        {intro}
        <p>You are not among the admins who can approve it: the others are asked to.</p>
      </ConfirmDialog>
    );
  }
  return (
    <ApproveDialog
      ctx={ctx}
      proposal={proposal}
      title="Needs approval"
      intro={intro}
      confirmLabel="Sign my approval"
      cancelLabel="Later"
      onClose={onClose}
    />
  );
}
