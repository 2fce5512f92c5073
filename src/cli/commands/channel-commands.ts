import { tenantNotFound } from '../../errors/common-errors.ts';
import type { Command } from '../command.ts';
import { optionalString, stringOption } from '../command.ts';
import { channelJson } from '../record-views.ts';
import { terminalLines, terminalText } from '../terminal-text.ts';
import { channelFrom, channelOptions } from './channel-option.ts';

const linkOptions = {
  ...channelOptions,
  admin: { type: 'string', required: true, placeholder: 'ID', description: 'Admin id (adm_…)' },
} as const;

export const channelCommands: Command[] = [
  {
    words: ['channel', 'create'],
    summary: 'Create a channel in a tenant',
    options: {
      tenant: { type: 'string', required: true, placeholder: 'ID', description: 'Tenant id (t_…)' },
      name: { type: 'string', required: true, placeholder: 'NAME', description: 'Channel name, unique in the tenant' },
    },
    async run({ values, store }) {
      const channel = await (await store()).createChannel({ tenantId: stringOption(values, 'tenant'), name: stringOption(values, 'name') });
      return { json: channelJson(channel), text: terminalText`Created channel ${channel.id} (${channel.name}) in ${channel.tenantId}` };
    },
  },
  {
    words: ['channel', 'list'],
    summary: 'List the channels (id and name) of a tenant, or of every tenant',
    options: { tenant: { type: 'string', placeholder: 'ID', description: 'Tenant id (t_…); default: every tenant' } },
    async run({ values, store }) {
      const s = await store();
      const tenantId = optionalString(values, 'tenant');
      if (tenantId !== undefined && !(await s.getTenant(tenantId))) throw tenantNotFound(tenantId);
      const tenantIds = tenantId !== undefined ? [tenantId] : (await s.listTenants()).map((t) => t.id);
      const channels = (await Promise.all(tenantIds.map((id) => s.listChannels(id)))).flat();
      const lines = channels.map((c) => terminalText`${c.id}  ${c.tenantId}  ${c.name}`);
      return { json: { items: channels.map(channelJson) }, text: lines.length > 0 ? terminalLines(lines) : terminalText`No channels` };
    },
  },
  {
    words: ['channel', 'link'],
    summary: 'Let an admin act on a channel',
    options: linkOptions,
    async run({ values, store }) {
      const s = await store();
      const channel = await channelFrom(s, values);
      const adminId = stringOption(values, 'admin');
      await s.linkChannel(channel.id, adminId);
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
    async run({ values, store }) {
      const s = await store();
      const channel = await channelFrom(s, values);
      const adminId = stringOption(values, 'admin');
      await s.unlinkChannel(channel.id, adminId);
      return {
        json: { channelId: channel.id, adminId, linked: false },
        text: terminalText`Unlinked ${adminId} from ${channel.id} (${channel.name})`,
      };
    },
  },
];
