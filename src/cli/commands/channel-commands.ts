import { tenantNotFound } from '../../errors/common-errors.ts';
import type { Command } from '../command.ts';
import { optionalString, stringOption } from '../command.ts';
import { pageOptions } from '../paging.ts';
import { channelJson } from '../record-views.ts';
import { ARCHIVED_MARK } from '../remote/remote-views.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';
import { channelFrom, channelOptions } from './channel-option.ts';
import { archiveRemotely, createChannelRemotely, linkRemotely, listChannelsRemotely, renameChannelRemotely } from './channel-remote.ts';

/** Over HTTP a channel's name is looked up in the signed-in admin's tenant: --tenant is the local mode's. */
const channelRefOptions = {
  ...channelOptions,
  channel: { ...channelOptions.channel!, description: 'Channel id (chn_…), or its name (locally together with --tenant)' },
  tenant: { ...channelOptions.tenant!, only: 'local' },
} as const;

const linkOptions = {
  ...channelRefOptions,
  admin: { type: 'string', required: true, placeholder: 'ID', description: 'Admin id (adm_…)' },
} as const;

export const channelCommands: Command[] = [
  {
    words: ['channel', 'create'],
    summary: 'Create a channel in a tenant (over HTTP: in yours, linked to you)',
    options: {
      tenant: { type: 'string', required: true, placeholder: 'ID', description: 'Tenant id (t_…)', only: 'local' },
      name: { type: 'string', required: true, placeholder: 'NAME', description: 'Channel name, unique in the tenant' },
    },
    remote: createChannelRemotely,
    async run({ values, directory }) {
      const channel = await (await directory()).createChannel({
        tenantId: stringOption(values, 'tenant'),
        name: stringOption(values, 'name'),
      });
      return { json: channelJson(channel), text: terminalText`Created channel ${channel.id} (${channel.name}) in ${channel.tenantId}` };
    },
  },
  {
    words: ['channel', 'list'],
    summary: 'List the channels (id and name) of a tenant, or of every tenant (over HTTP: those you are linked to)',
    options: {
      tenant: { type: 'string', placeholder: 'ID', description: 'Tenant id (t_…); default: every tenant', only: 'local' },
      limit: { ...pageOptions.limit, only: 'remote' },
      cursor: { ...pageOptions.cursor, only: 'remote' },
    },
    remote: listChannelsRemotely,
    async run({ values, store }) {
      const s = await store();
      const tenantId = optionalString(values, 'tenant');
      if (tenantId !== undefined && !(await s.getTenant(tenantId))) throw tenantNotFound(tenantId);
      const tenantIds = tenantId !== undefined ? [tenantId] : (await s.listTenants()).map((t) => t.id);
      const channels = (await Promise.all(tenantIds.map((id) => s.listChannels(id)))).flat();
      const lines = channels.map((c) => terminalText`${c.id}  ${c.tenantId}  ${c.name}${c.archivedAt === null ? '' : ARCHIVED_MARK}`);
      return { json: { items: channels.map(channelJson) }, text: lines.length > 0 ? terminalLines(lines) : terminalText`No channels` };
    },
  },
  {
    words: ['channel', 'link'],
    summary: 'Let an admin act on a channel',
    options: linkOptions,
    remote: linkRemotely(true),
    async run({ values, store, directory }) {
      const channel = await channelFrom(await store(), values);
      const adminId = stringOption(values, 'admin');
      await (await directory()).link(channel, adminId, true);
      return {
        json: { channelId: channel.id, adminId, linked: true },
        text: terminalText`Linked ${adminId} to ${channel.id} (${channel.name})`,
      };
    },
  },
  {
    words: ['channel', 'unlink'],
    summary: 'Stop an admin acting on a channel',
    options: linkOptions,
    remote: linkRemotely(false),
    async run({ values, store, directory }) {
      const channel = await channelFrom(await store(), values);
      const adminId = stringOption(values, 'admin');
      await (await directory()).link(channel, adminId, false);
      return {
        json: { channelId: channel.id, adminId, linked: false },
        text: terminalText`Unlinked ${adminId} from ${channel.id} (${channel.name})`,
      };
    },
  },
  {
    words: ['channel', 'rename'],
    summary: 'Rename a channel (its id stays)',
    options: {
      ...channelRefOptions,
      name: { type: 'string', required: true, placeholder: 'NAME', description: 'New name, unique in the tenant' },
    },
    remote: renameChannelRemotely,
    async run({ values, store, directory }) {
      const named = await channelFrom(await store(), values);
      const channel = await (await directory()).renameChannel(named.id, stringOption(values, 'name'));
      return { json: channelJson(channel), text: terminalText`Channel ${channel.id} is now ${channel.name}` };
    },
  },
  {
    words: ['channel', 'archive'],
    summary: 'Make a channel read-only: no upload, delete or restore; reads, downloads and backups still work',
    options: channelRefOptions,
    remote: archiveRemotely(true),
    run: archiveLocally(true),
  },
  {
    words: ['channel', 'unarchive'],
    summary: 'Make an archived channel writable again',
    options: channelRefOptions,
    remote: archiveRemotely(false),
    run: archiveLocally(false),
  },
];

function archiveLocally(archived: boolean): NonNullable<Command['run']> {
  return async ({ values, store, directory }) => {
    const named = await channelFrom(await store(), values);
    const channel = await (await directory()).setChannelArchived(named.id, archived);
    return {
      json: channelJson(channel),
      text: terminalText`Channel ${channel.id} (${channel.name}) is ${archived ? 'archived: read-only' : 'writable again'}`,
    };
  };
}
