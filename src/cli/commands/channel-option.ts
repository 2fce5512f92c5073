import { AppError } from '../../errors/app-error.ts';
import type { Channel, ChannelLookup, ChannelRecords } from '../../model/channels.ts';
import { type OptionSpec, type OptionValues, optionalString, stringOption } from '../command.ts';

export const channelOptions: Record<string, OptionSpec> = {
  channel: {
    type: 'string',
    required: true,
    placeholder: 'ID|NAME',
    description: 'Channel id (chn_…), or its name together with --tenant',
  },
  tenant: { type: 'string', placeholder: 'ID', description: 'Tenant id (t_…) of the channel named by --channel' },
};

/** The same, for a command that also runs over HTTP: there a name is looked up in the signed-in admin's tenant. */
export const channelRefOptions: Record<string, OptionSpec> = {
  ...channelOptions,
  channel: { ...channelOptions.channel!, description: 'Channel id (chn_…), or its name (locally together with --tenant)' },
  tenant: { ...channelOptions.tenant!, only: 'local' },
};

type Lookup = ChannelLookup & Pick<ChannelRecords, 'findChannelByName' | 'findChannelsByName'>;

/**
 * The operator names a channel by id, or by name within a tenant. Names are unique per tenant only,
 * so a name always needs --tenant: a name that is unique today may not be tomorrow, and a script
 * must not start acting on another tenant's channel then. Without it, the refusal names the
 * tenants that have a channel of that name.
 */
export async function channelFrom(store: Lookup, values: OptionValues): Promise<Channel> {
  const ref = stringOption(values, 'channel');
  const tenantId = optionalString(values, 'tenant');
  if (tenantId !== undefined) {
    const channel = (await store.findChannelByName(tenantId, ref)) ?? (await store.getChannel(ref));
    if (channel === undefined || channel.tenantId !== tenantId) {
      throw new AppError(
        'CHANNEL_NOT_FOUND',
        `Channel "${ref}" not found in tenant ${tenantId} (see: wallet-admin channel list --tenant ${tenantId})`,
      );
    }
    return channel;
  }
  const byId = await store.getChannel(ref);
  if (byId) return byId;
  const tenants = (await store.findChannelsByName(ref)).map((c) => c.tenantId);
  const hint =
    tenants.length > 0
      ? `; a channel name needs --tenant: ${tenants.length > 1 ? 'tenants' : 'tenant'} ${tenants.join(', ')} ${tenants.length > 1 ? 'have' : 'has'} a channel "${ref}"`
      : ref.startsWith('chn_')
        ? ' (see: wallet-admin channel list)'
        : '; to name a channel by its name, add --tenant (see: wallet-admin channel list)';
  throw new AppError('CHANNEL_NOT_FOUND', `Channel "${ref}" not found${hint}`);
}
