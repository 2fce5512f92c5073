import type { CommandResult, RemoteContext } from '../command.ts';
import { stringOption } from '../command.ts';
import { pageRequestOf, pageText } from '../paging.ts';
import { describeChannel } from '../remote/remote-views.ts';
import { terminalText } from '../terminal-text.ts';

/* The channel commands over HTTP, as the signed-in admin: a channel is named by id or by name, in its tenant. */

export async function createChannelRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const channel = await (await client()).createChannel(stringOption(values, 'name'));
  return { json: { ...channel }, text: terminalText`Created channel ${describeChannel(channel)}; you are linked to it` };
}

export async function listChannelsRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const page = await (await client()).listChannels(pageRequestOf(values));
  const lines = page.items.map(describeChannel);
  return { json: { ...page }, text: pageText(lines, page, terminalText`No channels`) };
}

export function linkRemotely(link: boolean) {
  return async ({ values, client }: RemoteContext): Promise<CommandResult> => {
    const api = await client();
    const channel = stringOption(values, 'channel');
    const adminId = stringOption(values, 'admin');
    await (link ? api.linkAdmin(channel, adminId) : api.unlinkAdmin(channel, adminId));
    return {
      json: { channel, adminId, linked: link },
      text: link ? terminalText`Linked ${adminId} to ${channel}` : terminalText`Unlinked ${adminId} from ${channel}`,
    };
  };
}

export async function renameChannelRemotely({ values, client }: RemoteContext): Promise<CommandResult> {
  const channel = await (await client()).updateChannel(stringOption(values, 'channel'), { name: stringOption(values, 'name') });
  return { json: { ...channel }, text: terminalText`Channel ${describeChannel(channel)}` };
}

export function archiveRemotely(archived: boolean) {
  return async ({ values, client }: RemoteContext): Promise<CommandResult> => {
    const channel = await (await client()).updateChannel(stringOption(values, 'channel'), { archived });
    return { json: { ...channel }, text: terminalText`Channel ${describeChannel(channel)}` };
  };
}
