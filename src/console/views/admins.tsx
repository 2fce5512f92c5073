import { useState } from 'preact/hooks';
import type { Admin, IssuedInvitation, Principal } from '../../client/index.ts';
import { shortAddress } from '../ui/format.ts';
import { usePagedLoad } from '../ui/paged-list.tsx';
import { PagedTable } from '../ui/paged-table.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { AdminStatusDialog, type StatusChange } from './admin-status-dialog.tsx';
import type { ViewContext } from './context.ts';
import { EditPermissionsDialog } from './edit-permissions-dialog.tsx';
import { InvitationLink } from './invitation-link.tsx';
import { InvitationsCard } from './invitations-card.tsx';
import { InviteDialog } from './invite-dialog.tsx';
import { LAST_WALLET_REASON } from './my-wallets.tsx';
import { RemoveWalletDialog } from './remove-wallet-dialog.tsx';

type AdminStatus = Admin['status'];

const STATUSES: AdminStatus[] = ['ACTIVE', 'SUSPENDED', 'REMOVED'];

type Editing = { admin: Admin; change: StatusChange | 'permissions' } | { invite: true };

/** The tenant's admins (a sub-admin: itself and those below it), and inviting, editing, suspending and removing them. */
export function AdminsView({ ctx }: { ctx: ViewContext }) {
  const [status, setStatus] = useState<AdminStatus>();
  const admins = usePagedLoad((cursor) => ctx.client.listAdmins({ limit: 50, cursor, status }), status ?? '');
  const [editing, setEditing] = useState<Editing>();
  const [removingWallet, setRemovingWallet] = useState<{ admin: Admin; address: string }>();
  const [invitation, setInvitation] = useState<IssuedInvitation>();
  /** Raised by each invitation made, for the list of invitations to show it. */
  const [invited, setInvited] = useState(0);
  const manages = ctx.can('admins:manage');
  const me = ctx.signedIn.me.principal.id;

  const changed = (message: string) => {
    setEditing(undefined);
    // Said once the list shows it, so that nobody reads "saved" beside the row as it was.
    void admins.reload().then(() => ctx.announce(message));
  };

  return (
    <>
      <section class="card" aria-labelledby="admins-title">
        <div class="section-head">
          <h1 id="admins-title">Admins</h1>
          <div class="section-tools">
            <label class="field field-inline">
              <span>Status</span>
              <select
                value={status ?? ''}
                onChange={(event) => {
                  admins.pages.reset();
                  setStatus(((event.target as HTMLSelectElement).value || undefined) as AdminStatus | undefined);
                }}
              >
                <option value="">Any</option>
                {STATUSES.map((value) => (
                  <option key={value} value={value}>
                    {statusLabel(value)}
                  </option>
                ))}
              </select>
            </label>
            {manages && (
              <button type="button" class="button button-primary" onClick={() => setEditing({ invite: true })}>
                Invite an admin…
              </button>
            )}
          </div>
        </div>
        {invitation && <InvitationLink invitation={invitation} onDismiss={() => setInvitation(undefined)} />}
        <ProblemNotice error={admins.error} />
        <PagedTable
          list={admins}
          label="Admins"
          empty={<p>No admin matches.</p>}
          loading="Loading admins…"
          class="admins-table stacked-table"
          rowKey={(admin) => admin.id}
          columns={[
            {
              header: 'Admin',
              rowHeader: true,
              cellClass: 'name-cell',
              cell: (admin) => (
                <>
                  <strong>{admin.displayName}</strong>
                  {admin.id === me && <span class="muted"> (you)</span>}
                  <code class="muted block">{admin.id}</code>
                </>
              ),
            },
            {
              header: 'Status',
              cell: (admin) => <span class={`badge badge-${admin.status.toLowerCase()}`}>{statusLabel(admin.status)}</span>,
            },
            {
              header: 'Permissions',
              cell: (admin) =>
                admin.ownerAdminId === 'N/A' ? (
                  <span title="An owner holds every permission of the tenant">Owner: all</span>
                ) : (
                  <ul class="chips" aria-label={`Permissions of ${admin.displayName}`}>
                    {admin.effectivePermissions.map((permission) => (
                      <li key={permission} class="chip">
                        {permission}
                      </li>
                    ))}
                  </ul>
                ),
            },
            {
              header: 'Channels',
              cell: (admin) =>
                admin.channelIds.length === 0 ? (
                  <span class="muted">None</span>
                ) : (
                  <ul class="plain-list" aria-label={`Channels of ${admin.displayName}`}>
                    {admin.channelIds.map((id) => (
                      <li key={id}>{ctx.channelName(id)}</li>
                    ))}
                  </ul>
                ),
            },
            {
              header: 'Wallets',
              cell: (admin) => {
                if (admin.wallets.length === 0) return <span class="muted">None</span>;
                // Removable here: another admin's wallets within reach (one's own are on the home page), never the last.
                const removable = manages && withinReach(ctx.signedIn.me.principal, admin);
                const only = admin.wallets.length === 1;
                return (
                  <>
                    <ul class="plain-list" aria-label={`Wallets of ${admin.displayName}`}>
                      {admin.wallets.map((wallet) => (
                        <li key={wallet}>
                          <code title={wallet}>{shortAddress(wallet)}</code>
                          {removable && (
                            <>
                              {' '}
                              <RowButton
                                label="Remove…"
                                aria-label={`Remove wallet ${wallet} of ${admin.displayName}`}
                                danger
                                disabled={only}
                                describedBy={only ? `last-wallet-${admin.id}` : undefined}
                                onClick={() => setRemovingWallet({ admin, address: wallet })}
                              />
                            </>
                          )}
                        </li>
                      ))}
                    </ul>
                    {removable && only && (
                      <p id={`last-wallet-${admin.id}`} class="muted">
                        {LAST_WALLET_REASON}
                      </p>
                    )}
                  </>
                );
              },
            },
          ]}
          actions={(admin) => manages && withinReach(ctx.signedIn.me.principal, admin) && <RowActions admin={admin} onEdit={setEditing} />}
        />
        {editing && 'invite' in editing && (
          <InviteDialog
            ctx={ctx}
            onClose={() => setEditing(undefined)}
            onCreated={(created) => {
              setEditing(undefined);
              setInvitation(created);
              setInvited((n) => n + 1);
            }}
          />
        )}
        {editing && 'admin' in editing && editing.change === 'permissions' && (
          <EditPermissionsDialog
            ctx={ctx}
            admin={editing.admin}
            onClose={() => setEditing(undefined)}
            onSaved={(updated) => changed(`The permissions of ${updated.displayName} are saved.`)}
          />
        )}
        {removingWallet && (
          <RemoveWalletDialog
            ctx={ctx}
            adminId={removingWallet.admin.id}
            adminName={removingWallet.admin.displayName}
            address={removingWallet.address}
            onClose={() => setRemovingWallet(undefined)}
            onRemoved={(message) => {
              setRemovingWallet(undefined);
              changed(message);
            }}
          />
        )}
        {editing && 'admin' in editing && editing.change !== 'permissions' && (
          <AdminStatusDialog
            ctx={ctx}
            admin={editing.admin}
            change={editing.change}
            onClose={() => setEditing(undefined)}
            onDone={changed}
          />
        )}
      </section>
      {manages && <InvitationsCard ctx={ctx} round={invited} />}
    </>
  );
}

/** What an editor may do to another admin; an owner's permissions are all, so there are none to edit. */
function RowActions({ admin, onEdit }: { admin: Admin; onEdit(editing: Editing): void }) {
  const name = admin.displayName;
  return (
    <>
      {admin.ownerAdminId !== 'N/A' && (
        <RowButton label="Permissions…" aria-label={`Permissions of ${name}`} onClick={() => onEdit({ admin, change: 'permissions' })} />
      )}
      {admin.status === 'ACTIVE' ? (
        <RowButton label="Suspend…" aria-label={`Suspend ${name}`} danger onClick={() => onEdit({ admin, change: 'suspend' })} />
      ) : (
        <RowButton label="Reactivate…" aria-label={`Reactivate ${name}`} onClick={() => onEdit({ admin, change: 'reactivate' })} />
      )}
      <RowButton label="Remove…" aria-label={`Remove ${name}`} danger onClick={() => onEdit({ admin, change: 'remove' })} />
    </>
  );
}

/**
 * Whether the editor may change the admin (docs/administration.md): not oneself here (the home page
 * has one's own wallets), not a removed admin; an owner any other; a sub-admin only the sub-admins
 * below it (the only others it lists) whose permissions it holds all of.
 */
function withinReach(editor: Principal, admin: Admin): boolean {
  if (admin.id === editor.id || admin.status === 'REMOVED') return false;
  if (editor.ownerAdminId === 'N/A') return true;
  return admin.ownerAdminId !== 'N/A' && admin.effectivePermissions.every((permission) => editor.effectivePermissions.includes(permission));
}

function statusLabel(status: AdminStatus): string {
  return { ACTIVE: 'Active', SUSPENDED: 'Suspended', REMOVED: 'Removed' }[status];
}
