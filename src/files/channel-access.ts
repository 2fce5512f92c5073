import type { Principal } from '../auth/principal.ts';
import { hasPermission } from '../auth/principal.ts';
import type { Permission } from '../auth/permissions.ts';
import { AppError } from '../errors/app-error.ts';
import type { Channel, MetadataStore } from '../store/types.ts';

const CHANNEL_ID = /^chn_/;

/**
 * The channel a request names (by id, or by name within the caller's tenant), if the caller may
 * act on it. A missing channel, another tenant's and one the caller is not linked to all get the
 * same 404, so that nobody learns which channels exist. Only then is the permission checked (403).
 */
export async function resolveChannel(store: MetadataStore, principal: Principal, channelRef: string, permission: Permission): Promise<Channel> {
  const channel = await visibleChannel(store, principal, channelRef);
  requirePermission(principal, permission);
  return channel;
}

/** The channel if the caller may see it at all (else 404); permissions not yet checked. */
export async function visibleChannel(store: MetadataStore, principal: Principal, channelRef: string): Promise<Channel> {
  const channel = await namedChannel(store, principal, channelRef);
  if (channel === undefined || channel.tenantId !== principal.tenantId || !principal.channelIds.includes(channel.id)) {
    throw new AppError('CHANNEL_NOT_FOUND', `No channel "${channelRef.slice(0, 100)}" that this admin may use`);
  }
  return channel;
}

/**
 * The channel a reference names, whether or not the caller may see it (an id in any tenant, a
 * name in the caller's): only for writing the refusal into that channel's audit log.
 */
export async function namedChannel(store: MetadataStore, principal: Principal, channelRef: string): Promise<Channel | undefined> {
  return CHANNEL_ID.test(channelRef) ? store.getChannel(channelRef) : store.findChannelByName(principal.tenantId, channelRef);
}

export function requirePermission(principal: Principal, permission: Permission): void {
  if (!hasPermission(principal, permission)) {
    throw new AppError('PERMISSION_DENIED', `This admin lacks the permission ${permission} on this channel`);
  }
}
