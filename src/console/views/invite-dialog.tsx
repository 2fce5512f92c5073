import { useState } from 'preact/hooks';
import type { IssuedInvitation, Permission } from '../../client/index.ts';
import { HeldForApproval } from '../../client/index.ts';
import { ConfirmDialog } from '../ui/confirm-dialog.tsx';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { useAction } from '../ui/use-action.ts';
import { useLoad } from '../ui/use-load.ts';
import type { ViewContext } from './context.ts';
import { NeedsApprovalDialog } from './needs-approval-dialog.tsx';
import { PermissionMatrix } from './permission-matrix.tsx';

const DAY = 24 * 3600;
/** The service takes at most INVITATION_MAX_SECONDS, 7 days unless configured otherwise. */
const EXPIRIES = [
  { seconds: DAY, label: '1 day' },
  { seconds: 3 * DAY, label: '3 days' },
  { seconds: 7 * DAY, label: '7 days' },
];
/** As many of the editor's channels as the dialog offers. */
const CHANNELS_LISTED = 1000;

/** An invitation to the tenant: what it grants (no more than the editor holds), for how long, and optionally to whom. */
export function InviteDialog({
  ctx,
  onCreated,
  onClose,
}: {
  ctx: ViewContext;
  onCreated(invitation: IssuedInvitation): void;
  onClose(): void;
}) {
  const held = ctx.signedIn.me.principal.effectivePermissions;
  const channels = useLoad(() => ctx.client.listChannels({ limit: CHANNELS_LISTED }), 'invite-channels');
  const [displayName, setDisplayName] = useState('');
  const [wallet, setWallet] = useState('');
  const [expiresIn, setExpiresIn] = useState(7 * DAY);
  const [permissions, setPermissions] = useState<string[]>(held.includes('files:read') ? ['files:read'] : []);
  const [granted, setGranted] = useState<string[]>([]);
  const action = useAction((error) => ctx.session.noticeError(error));

  const create = () =>
    action.run(async () => {
      const invitation = await ctx.client.createInvitation({
        // The service's own names: the matrix offers only those.
        permissions: permissions as Permission[],
        channels: granted,
        expiresIn,
        ...(wallet.trim() ? { wallet: wallet.trim() } : {}),
        ...(displayName.trim() ? { displayName: displayName.trim() } : {}),
      });
      onCreated(invitation);
    });

  // A policy may hold the invitation (invitation.create): it then waits for approvals, and no link exists yet.
  if (action.error instanceof HeldForApproval) return <NeedsApprovalDialog ctx={ctx} proposal={action.error.proposal} onClose={onClose} />;
  return (
    <ConfirmDialog title="Invite an admin" confirmLabel="Create the invitation" busy={action.busy} onConfirm={create} onCancel={onClose}>
      <p>
        The invitation is a link, shown once. Whoever opens it signs in with their wallet and becomes an admin below you, with what you tick
        here: you can grant only what you hold yourself.
      </p>
      <label class="field">
        <span>Their name (optional)</span>
        <input value={displayName} onInput={(event) => setDisplayName((event.target as HTMLInputElement).value)} />
      </label>
      <label class="field">
        <span>Only this wallet may accept it (optional)</span>
        <input value={wallet} placeholder="0x…" onInput={(event) => setWallet((event.target as HTMLInputElement).value)} />
      </label>
      <label class="field">
        <span>Valid for</span>
        <select value={String(expiresIn)} onChange={(event) => setExpiresIn(Number((event.target as HTMLSelectElement).value))}>
          {EXPIRIES.map((option) => (
            <option key={option.seconds} value={String(option.seconds)}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      <fieldset class="fieldset">
        <legend>Permissions</legend>
        <PermissionMatrix value={permissions} grantable={held} onChange={setPermissions} />
      </fieldset>
      <fieldset class="fieldset">
        <legend>Channels</legend>
        <ProblemNotice error={channels.error} />
        {channels.data?.items.length === 0 && <p class="muted">You are linked to no channel: the invitee gets none.</p>}
        {channels.data?.items.map((channel) => (
          <label key={channel.id} class="check">
            <input
              type="checkbox"
              checked={granted.includes(channel.id)}
              onChange={(event) =>
                setGranted(
                  (event.target as HTMLInputElement).checked ? [...granted, channel.id] : granted.filter((id) => id !== channel.id),
                )
              }
            />
            <span>{channel.name}</span>
          </label>
        ))}
      </fieldset>
      <ProblemNotice error={action.error} title="No invitation made" />
    </ConfirmDialog>
  );
}
