import type { Admin } from '../../client/index.ts';
import { HeldForApproval } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';

export type StatusChange = 'suspend' | 'reactivate' | 'remove';

const SESSIONS_END =
  'Their signed-in sessions end on every instance of the service within the auth-state refresh (AUTH_STATE_REFRESH, a few seconds): every browser, script and tool signed in as them is refused from then on.';

/** Suspending, reactivating or removing an admin, once the editor has read what it ends. */
export function AdminStatusDialog({
  ctx,
  admin,
  change,
  onDone,
  onClose,
}: {
  ctx: ViewContext;
  admin: Admin;
  change: StatusChange;
  onDone(message: string): void;
  onClose(): void;
}) {
  const action = useAction((error) => ctx.session.noticeError(error));
  const name = admin.displayName;
  const confirm = () =>
    action.run(async () => {
      if (change === 'remove') {
        await ctx.client.removeAdmin(admin.id);
        onDone(`${name} was removed.`);
      } else {
        await ctx.client.updateAdmin(admin.id, { status: change === 'suspend' ? 'SUSPENDED' : 'ACTIVE' });
        onDone(change === 'suspend' ? `${name} is suspended: their sessions are ending.` : `${name} is active again.`);
      }
    });
  // A policy may hold the change: it then waits for approvals, and nothing has changed yet.
  if (action.error instanceof HeldForApproval) return <NeedsApprovalDialog ctx={ctx} proposal={action.error.proposal} onClose={onClose} />;
  const texts = {
    suspend: { title: `Suspend ${name}?`, label: 'Suspend', body: [SESSIONS_END, 'Reactivate them later to let them sign in again.'] },
    reactivate: {
      title: `Reactivate ${name}?`,
      label: 'Reactivate',
      body: ['They can sign in again with their wallets, with the permissions and channels they had.'],
    },
    remove: {
      title: `Remove ${name}?`,
      label: 'Remove',
      body: [
        SESSIONS_END,
        'Their wallets are released and the admins below them move to you. Their record stays, as removed, for the audit log; this cannot be undone.',
      ],
    },
  }[change];
  return (
    <ConfirmDialog
      title={texts.title}
      confirmLabel={texts.label}
      danger={change !== 'reactivate'}
      busy={action.busy}
      onConfirm={confirm}
      onCancel={onClose}
    >
      {texts.body.map((text) => (
        <p key={text}>{text}</p>
      ))}
      <ProblemNotice error={action.error} title="Nothing changed" />
    </ConfirmDialog>
  );
}
