import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../errors/app-error.ts';
import type { ChannelAccess, ChannelTarget } from '../../../files/channel-access.ts';
import type { LinkSigner } from '../../../files/signed-links.ts';
import { namedIn } from './channel-lookup.ts';

interface LinkQuery {
  expires?: string;
  signature?: string;
}

/**
 * The file a signed link (?expires&signature, from a restore) opens, without a wallet; undefined
 * when the request carries no link. A link that does not verify is refused, not ignored: the
 * caller meant it.
 */
export async function linkedTarget(
  access: ChannelAccess,
  linkSigner: LinkSigner | undefined,
  request: FastifyRequest,
): Promise<ChannelTarget | undefined> {
  const query = (request.query ?? {}) as LinkQuery;
  if (query.expires === undefined && query.signature === undefined) return undefined;
  if (!linkSigner) throw new AppError('LINK_INVALID', 'This service does not issue signed links');
  linkSigner.verify(request.url.split('?')[0]!, query.expires, query.signature, Date.now());
  return access.openLinked(namedIn(request));
}
