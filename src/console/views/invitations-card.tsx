import { useState } from 'preact/hooks';
import type { Invitation } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { Time } from '../ui/time.tsx';
import { useAction } from '../ui/use-action.ts';
import type { ViewContext } from './context.ts';

/**
 * The invitations the editor may see, and revoking a pending one (a link sent to the wrong person,
 * or no longer wanted). `round` changes when a new one was made, to list it.
 */
export function InvitationsCard({ ctx, round }: { ctx: ViewContext; round: number }) {
  const invitations = usePagedLoad((cursor) => ctx.client.listInvitations({ limit: 20, cursor }), `invitations-${round}`);
  const [revoking, setRevoking] = useState<Invitation>();
  const action = useAction((error) => ctx.session.noticeError(error));
  const nameOf = (invitation: Invitation) => invitation.displayName ?? `the invitation of ${invitation.createdAt.slice(0, 10)}`;

  const revoke = (invitation: Invitation) =>
    action.run(async () => {
      await ctx.client.revokeInvitation(invitation.id);
      setRevoking(undefined);
      await invitations.reload();
      ctx.announce(`Revoked: ${nameOf(invitation)} can no longer be accepted.`);
    });

  return (
    <section class="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <ProblemNotice error={invitations.error} />
      <PagedTable
        list={invitations}
        label="Invitations"
        empty={<p class="muted">No invitation yet.</p>}
        loading="Loading invitations…"
        class="invitations-table stacked-table"
        rowKey={(invitation) => invitation.id}
        columns={[
          {
            header: 'For',
            rowHeader: true,
            cellClass: 'name-cell',
            cell: (invitation) => (
              <>
                {invitation.displayName ?? <span class="muted">No name given</span>}
                {invitation.wallet && <code class="muted block">{invitation.wallet}</code>}
              </>
            ),
          },
          { header: 'State', cell: (invitation) => <span class={`badge badge-${invitation.state}`}>{invitation.state}</span> },
          {
            header: 'Grants',
            cell: (invitation) => (
              <ul class="chips" aria-label="Grants">
                {invitation.permissions.map((permission) => (
                  <li key={permission} class="chip">
                    {permission}
                  </li>
                ))}
                {invitation.channelIds.map((id) => (
                  <li key={id} class="chip">
                    {ctx.channelName(id)}
                  </li>
                ))}
              </ul>
            ),
          },
          {
            header: 'Expires',
            cellClass: 'time-cell',
            cell: (invitation) => <Time value={invitation.expiresAt} />,
          },
        ]}
        actions={(invitation) =>
          invitation.state === 'pending' && (
            <RowButton label="Revoke…" aria-label={`Revoke ${nameOf(invitation)}`} danger onClick={() => setRevoking(invitation)} />
          )
        }
      />
      {revoking && (
        <ConfirmDialog
          title={`Revoke ${nameOf(revoking)}?`}
          confirmLabel="Revoke"
          danger
          busy={action.busy}
          onConfirm={() => revoke(revoking)}
          onCancel={() => setRevoking(undefined)}
        >
          <p>Its link stops working at once: whoever opens it is told it was revoked. Nobody became an admin through it.</p>
          <ProblemNotice error={action.error} title="Not revoked" />
        </ConfirmDialog>
      )}
    </section>
  );
}
