import { HeldForApproval, type RotatedWebhookSecret, type Webhook } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';

interface WebhookDialogProps {
  ctx: ViewContext;
  webhook: Webhook;
  onClose(): void;
}

/**
 * A new signing secret, once the admin has read that the receiver must take it up: the old one
 * keeps signing beside it for a grace period (WEBHOOK_SECRET_GRACE), so nothing is refused meanwhile.
 */
export function RotateSecretDialog({
  ctx,
  webhook,
  onClose,
  onRotated,
}: WebhookDialogProps & { onRotated(rotated: RotatedWebhookSecret): void }) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const confirm = () => action.run(async () => onRotated(await ctx.client.rotateWebhookSecret(webhook.id)));
  // A policy may hold the rotation (webhook.change): it waits for approvals, and no secret exists yet.
  if (action.error instanceof HeldForApproval) return <NeedsApprovalDialog ctx={ctx} proposal={action.error.proposal} onClose={onClose} />;
  return (
    <ConfirmDialog
      title="Rotate the signing secret?"
      confirmLabel="Rotate secret"
      busy={action.busy}
      onConfirm={confirm}
      onCancel={onClose}
    >
      <p>
        The service makes a new secret and shows it once. Every delivery is then signed with both the new and the old secret until the grace
        period ends (a day unless the operator set another): give the receiver the new one before then.
      </p>
      <p class="muted">Rotate when the secret may have leaked, or as a routine; the receiver verifies with either meanwhile.</p>
      <ProblemNotice error={action.error} title="Not rotated" />
    </ConfirmDialog>
  );
}

/** Deletes the webhook, after saying what goes with it. */
export function DeleteWebhookDialog({ ctx, webhook, onClose, onDeleted }: WebhookDialogProps & { onDeleted(): void }) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const confirm = () =>
    action.run(async () => {
      await ctx.client.deleteWebhook(webhook.id);
      onDeleted();
    });
  // A policy may hold the delete (webhook.delete): the webhook delivers on until the proposal runs.
  if (action.error instanceof HeldForApproval) return <NeedsApprovalDialog ctx={ctx} proposal={action.error.proposal} onClose={onClose} />;
  return (
    <ConfirmDialog
      title="Delete this webhook?"
      confirmLabel="Delete webhook"
      danger
      busy={action.busy}
      onConfirm={confirm}
      onCancel={onClose}
    >
      <p>
        <code class="wrap">{webhook.url}</code> gets no more events, and the webhook's delivery log goes with it. A webhook made again to
        the same URL starts with the events after its own creation, not where this one stood. This cannot be undone.
      </p>
      <ProblemNotice error={action.error} title="Not deleted" />
    </ConfirmDialog>
  );
}
