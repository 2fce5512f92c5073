import type { Command } from '../command.ts';
import { integerOption, listOption, optionalString, stringOption } from '../command.ts';
import { pageOptions, pageRequestOf, pageText } from '../paging.ts';
import { permissionsOption } from '../remote/permission-option.ts';
import { describeAdmin, describeInvitation } from '../remote/remote-views.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';

/** Seven days: the service's INVITATION_MAX_SECONDS by default; a longer wish is the service's to refuse. */
const MAX_EXPIRES_IN = 7 * 86400;

/** The token alone, or the console's invitation URL that carries it in its fragment (#token=…). */
function tokenOf(text: string): string {
  const fragment = /#(?:.*&)?token=([^&]+)/.exec(text);
  return fragment ? decodeURIComponent(fragment[1]!) : text.trim();
}

/** Inviting someone, over HTTP only: an invitation is the tenant's business, which the operator's store mode leaves to admins. */
export const invitationCommands: Command[] = [
  {
    words: ['admin', 'invite'],
    summary: 'Invite someone to become an admin below you: prints a single-use token and its console URL, shown this once',
    options: {
      permission: { type: 'string', multiple: true, placeholder: 'PERMISSION', description: 'A permission to grant (one you hold)' },
      channel: { type: 'string', multiple: true, placeholder: 'ID|NAME', description: 'A channel to link (one you are linked to)' },
      'expires-in': {
        type: 'string',
        placeholder: 'SECONDS',
        description: 'Seconds until it expires, from 60 to 604800 (default 86400, a day)',
      },
      wallet: {
        type: 'string',
        placeholder: '0x…',
        description: 'Only this wallet may accept it (default: any wallet that is no admin yet)',
      },
      name: { type: 'string', placeholder: 'NAME', description: "The new admin's display name, unless they give another" },
    },
    async remote({ values, client }) {
      const wallet = optionalString(values, 'wallet');
      const displayName = optionalString(values, 'name');
      const invitation = await (await client()).createInvitation({
        permissions: permissionsOption(values),
        channels: listOption(values, 'channel'),
        expiresIn: integerOption(values, 'expires-in', { min: 60, max: MAX_EXPIRES_IN, fallback: 86400 }),
        ...(wallet === undefined ? {} : { wallet }),
        ...(displayName === undefined ? {} : { displayName }),
      });
      return {
        json: { ...invitation },
        text: terminalLines([
          terminalText`Invitation ${invitation.id}, expires ${invitation.expiresAt}`,
          terminalText`Token (shown once): ${invitation.token}`,
          terminalText`Console: ${invitation.url}`,
          terminalText`They accept with: wallet-admin admin accept-invitation --token TOKEN --url URL --keystore THEIR_KEYSTORE`,
        ]),
      };
    },
  },
  {
    words: ['admin', 'invitations'],
    summary: "The tenant's invitations you may see, each with its state (never their tokens)",
    options: pageOptions,
    async remote({ values, client }) {
      const page = await (await client()).listInvitations(pageRequestOf(values));
      return { json: { ...page }, text: pageText(page.items.map(describeInvitation), page, terminalText`No invitations`) };
    },
  },
  {
    words: ['admin', 'revoke-invitation'],
    summary: 'Revoke an invitation: its token no longer works',
    options: { invitation: { type: 'string', required: true, placeholder: 'ID', description: 'Invitation id (inv_…)' } },
    async remote({ values, client }) {
      const invitationId = stringOption(values, 'invitation');
      await (await client()).revokeInvitation(invitationId);
      return { json: { invitationId, revoked: true }, text: terminalText`Revoked invitation ${invitationId}` };
    },
  },
  {
    words: ['admin', 'accept-invitation'],
    summary: 'Accept an invitation with your wallet (--keystore, no admin yet): you become an admin of the inviting tenant',
    options: {
      token: {
        type: 'string',
        required: true,
        placeholder: 'TOKEN',
        description: "The invitation's token, or its console URL (…/console/invite#token=…)",
      },
      name: { type: 'string', placeholder: 'NAME', description: 'Your display name (default: the one the invitation gives)' },
    },
    async remote({ values, client }) {
      const displayName = optionalString(values, 'name');
      const admin = await (await client()).acceptInvitation(
        tokenOf(stringOption(values, 'token')),
        displayName === undefined ? {} : { displayName },
      );
      return { json: { ...admin }, text: terminalText`You are admin ${describeAdmin(admin)}` };
    },
  },
];
