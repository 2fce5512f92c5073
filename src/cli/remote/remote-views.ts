import type { Admin, ChannelInfo, Invitation } from '../../client/index.ts';
import { type TerminalText, terminalText } from '../terminal-text.ts';

/** What the CLI prints of the API's records over HTTP; --json prints them as the API answers them. */

export function describeAdmin(admin: Admin): TerminalText {
  const owner = admin.ownerAdminId === 'N/A' ? 'owner admin' : `below ${admin.ownerAdminId}`;
  const permissions = admin.effectivePermissions.length > 0 ? admin.effectivePermissions.join(', ') : 'none';
  const channels = admin.channelIds.length > 0 ? admin.channelIds.join(', ') : 'none';
  const wallets = admin.wallets.length > 0 ? admin.wallets.join(', ') : 'no wallet';
  return terminalText`${admin.id}  ${wallets}  ${admin.status}  "${admin.displayName}"  (${owner}; permissions: ${permissions}; channels: ${channels})`;
}

export function describeInvitation(invitation: Invitation): TerminalText {
  const wallet = invitation.wallet ?? 'any wallet';
  return terminalText`${invitation.id}  ${invitation.state}  expires ${invitation.expiresAt}  for ${wallet}  (permissions: ${invitation.permissions.join(', ') || 'none'}; channels: ${invitation.channelIds.join(', ') || 'none'})`;
}

/** After a channel's name, in every mode: it takes no upload, delete or restore. */
export const ARCHIVED_MARK = '  (archived: read-only)';

export function describeChannel(channel: ChannelInfo): TerminalText {
  return terminalText`${channel.id}  ${channel.name}${channel.archived ? ARCHIVED_MARK : ''}`;
}
