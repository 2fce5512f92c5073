import { useState } from 'preact/hooks';
import type { Admin, Permission } from '../../client/index.ts';
import { HeldForApproval } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';
import { PermissionMatrix } from './permission-matrix.tsx';

/** A sub-admin's permissions, changed within what the editor holds; a narrowed one takes effect on their next request. */
export function EditPermissionsDialog({
  ctx,
  admin,
  onSaved,
  onClose,
}: {
  ctx: ViewContext;
  admin: Admin;
  onSaved(updated: Admin): void;
  onClose(): void;
}) {
  const [permissions, setPermissions] = useState<string[]>(admin.effectivePermissions);
  const action = useAction((error) => ctx.session.noticeError(error));
  // The service's own names: the admin's effective permissions, or ones the matrix offers.
  const save = () => action.run(async () => onSaved(await ctx.client.updateAdmin(admin.id, { permissions: permissions as Permission[] })));
  // A policy may hold the change: it then waits for approvals, and nothing has changed yet.
  if (action.error instanceof HeldForApproval) return <NeedsApprovalDialog ctx={ctx} proposal={action.error.proposal} onClose={onClose} />;
  return (
    <ConfirmDialog
      title={`Permissions of ${admin.displayName}`}
      confirmLabel="Save permissions"
      busy={action.busy}
      onConfirm={save}
      onCancel={onClose}
    >
      <p>
        What you take away stops working for them within the service's auth-state refresh (<code>AUTH_STATE_REFRESH</code>, a few seconds),
        on every instance. You can grant only what you hold yourself.
      </p>
      <PermissionMatrix value={permissions} grantable={ctx.signedIn.me.principal.effectivePermissions} onChange={setPermissions} />
      <ProblemNotice error={action.error} title="Permissions not changed" />
    </ConfirmDialog>
  );
}
