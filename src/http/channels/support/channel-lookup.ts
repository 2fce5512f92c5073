import type { FastifyRequest } from 'fastify';
import type { ChannelAccess, ChannelTarget } from '../../../files/channel-access.ts';
import type { Permission } from '../../../model/permissions.ts';
import { authenticationOf } from '../../auth/wallet-auth.ts';

/**
 * What a route writes to the channel's audit log when the lookup refuses it (channel, permission,
 * path): the action, and the rest of what the request asked for. Declared by the route, which
 * alone knows its query.
 */
export type RefusalAudit = NonNullable<Parameters<ChannelAccess['open']>[1]['audited']>;

/** The params the scope reads; the routes' schemas have already checked their types. */
interface ChannelRouteParams {
  channelRef: string;
  folderName?: string;
  filename?: string;
}

/** The channel, folder and file a request's path names. */
export function namedIn(request: FastifyRequest): { channelRef: string; folder: string | undefined; filename: string | undefined } {
  const params = request.params as ChannelRouteParams;
  return { channelRef: params.channelRef, folder: params.folderName, filename: params.filename };
}

/** The signed-in admin's channel, folder and file, checked against the permission the route needs. */
export function lookUpChannel(
  access: ChannelAccess,
  request: FastifyRequest,
  permission: Permission,
  audited: RefusalAudit | undefined,
): Promise<ChannelTarget> {
  return access.open(authenticationOf(request).principal, { ...namedIn(request), permission, audited });
}
