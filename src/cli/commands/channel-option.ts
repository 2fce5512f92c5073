import { AppError } from '../../errors/app-error.ts';
import type { Channel, ChannelLookup } from '../../store/types.ts';
import { type OptionSpec, type OptionValues, optionalString, stringOption } from '../command.ts';

export const channelOptions: Record<string, OptionSpec> = {
  channel: { type: 'string', required: true, description: 'Channel id (chn_…), or its name together with --tenant' },
  tenant: { type: 'string', description: 'Tenant id (t_…), when --channel is a name' },
};

/** The operator names a channel by id, or by name within a tenant (names are unique per tenant only). */
export async function channelFrom(store: ChannelLookup, values: OptionValues): Promise<Channel> {
  const ref = stringOption(values, 'channel');
  const tenantId = optionalString(values, 'tenant');
  const channel =
    tenantId === undefined
      ? await store.getChannel(ref)
      : ((await store.findChannelByName(tenantId, ref)) ?? (await store.getChannel(ref)));
  if (channel === undefined || (tenantId !== undefined && channel.tenantId !== tenantId)) {
    const hint = tenantId === undefined && !ref.startsWith('chn_') ? '; to name a channel by its name, add --tenant' : '';
    throw new AppError('CHANNEL_NOT_FOUND', `No channel "${ref}"${tenantId ? ` in tenant ${tenantId}` : ''}${hint}`);
  }
  return channel;
}

/** The CLI acts as the operator, not as an admin: audit entries carry no admin id. */
export const OPERATOR = { adminId: null };
