import type { Command } from '../command.ts';
import { stringOption } from '../command.ts';

const linkOptions = {
  channel: { type: 'string', required: true, description: 'Channel id (chn_…)' },
  admin: { type: 'string', required: true, description: 'Admin id (adm_…)' },
} as const;

export const channelCommands: Command[] = [
  {
    words: ['channel', 'create'],
    summary: 'Create a channel in a tenant',
    options: {
      tenant: { type: 'string', required: true, description: 'Tenant id (t_…)' },
      name: { type: 'string', required: true, description: 'Channel name, unique in the tenant' },
    },
    async run({ values, store }) {
      const channel = await (await store()).createChannel({ tenantId: stringOption(values, 'tenant'), name: stringOption(values, 'name') });
      return { json: { ...channel }, text: `Created channel ${channel.id} (${channel.name}) in ${channel.tenantId}` };
    },
  },
  {
    words: ['channel', 'link'],
    summary: 'Let an admin act on a channel',
    options: linkOptions,
    async run({ values, store }) {
      const channelId = stringOption(values, 'channel');
      const adminId = stringOption(values, 'admin');
      await (await store()).linkChannel(channelId, adminId);
      return { json: { channelId, adminId, linked: true }, text: `Linked ${adminId} to ${channelId}` };
    },
  },
  {
    words: ['channel', 'unlink'],
    summary: 'Stop an admin acting on a channel',
    options: linkOptions,
    async run({ values, store }) {
      const channelId = stringOption(values, 'channel');
      const adminId = stringOption(values, 'admin');
      await (await store()).unlinkChannel(channelId, adminId);
      return { json: { channelId, adminId, linked: false }, text: `Unlinked ${adminId} from ${channelId}` };
    },
  },
];
