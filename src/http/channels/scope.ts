import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors/app-error.ts';
import type { Actor } from '../../files/audit-trail.ts';
import type { ChannelAccess, ChannelTarget } from '../../files/channel-access.ts';
import type { FilePath } from '../../files/file-path.ts';
import type { LinkSigner } from '../../files/signed-links.ts';
import type { AuditAction } from '../../model/audit.ts';
import type { Channel } from '../../model/channels.ts';
import type { Permission } from '../../model/permissions.ts';
import { authenticationOf } from '../auth/wallet-auth.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission a route of the channel scope needs on the channel its :channelRef names. */
    permission?: Permission;
    /** A signed link (?expires&signature, from a restore) may stand in for the wallet. */
    signedLinks?: boolean;
    /** Refusals (channel, permission, path) are written to the channel's audit log as this action. */
    auditRefusalsAs?: AuditAction;
    /** Checks the body once the caller is known, before the channel: a malformed request is refused as such, unaudited. */
    checkBody?: (body: unknown) => void;
  }
  interface FastifyRequest {
    channelTarget: ChannelTarget | null;
  }
}

/** The params and query names the scope reads; the routes' schemas have already checked their types. */
interface ChannelRouteParams {
  channelRef: string;
  folderName?: string;
  filename?: string;
}
interface ChannelRouteQuery {
  expires?: string;
  signature?: string;
  backupTimestamp?: string;
  versionId?: string;
  at?: string;
}

interface ChannelScopeOptions {
  access: ChannelAccess;
  linkSigner: LinkSigner | undefined;
}

/**
 * Every route on a channel is registered in this scope. One preHandler authenticates the caller
 * and resolves the channel, the permission the route declares in its config, and the folder and
 * file it names, before any handler runs; the handlers read the outcome with channelOf/filePathOf.
 */
async function channelScope(app: FastifyInstance, { access, linkSigner }: ChannelScopeOptions): Promise<void> {
  app.decorateRequest('channelTarget', null);

  // A route here without a permission would be open to any signed-in admin: refused at start-up.
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.config?.permission === undefined)
      throw new Error(`Route ${String(route.method)} ${route.url} is in the channel scope without a permission`);
  });

  app.addHook('preHandler', async function resolveChannelTarget(request: FastifyRequest, reply: FastifyReply) {
    const { permission, signedLinks, auditRefusalsAs, checkBody } = request.routeOptions.config;
    const params = request.params as ChannelRouteParams;
    const query = (request.query ?? {}) as ChannelRouteQuery;
    const named = { channelRef: params.channelRef, folder: params.folderName, filename: params.filename };
    if (signedLinks && (query.expires !== undefined || query.signature !== undefined)) {
      if (!linkSigner) throw new AppError('LINK_INVALID', 'This service does not issue signed links');
      linkSigner.verify(request.url.split('?')[0]!, query.expires, query.signature, Date.now());
      request.channelTarget = await access.openLinked(named);
      return;
    }
    await app.requireWallet.call(app, request, reply);
    const { principal } = authenticationOf(request);
    checkBody?.(request.body);
    const audited = auditRefusalsAs && {
      action: auditRefusalsAs,
      asked: { backupTimestamp: query.backupTimestamp, versionId: query.versionId, at: query.at },
    };
    request.channelTarget = await access.open(principal, { ...named, permission: permission!, audited });
  });
}

export default fp(channelScope, { name: 'channel-scope', dependencies: ['wallet-auth'] });

function targetOf(request: FastifyRequest): ChannelTarget {
  if (request.channelTarget === null) throw new AppError('INTERNAL_ERROR', 'Route used the channel outside the channel scope');
  return request.channelTarget;
}

export const channelOf = (request: FastifyRequest): Channel => targetOf(request).channel;

export function folderOf(request: FastifyRequest): string {
  const { folder } = targetOf(request);
  if (folder === undefined) throw new AppError('INTERNAL_ERROR', 'Route used a folder its path does not name');
  return folder;
}

export function filePathOf(request: FastifyRequest): FilePath {
  const { path } = targetOf(request);
  if (path === undefined) throw new AppError('INTERNAL_ERROR', 'Route used a file its path does not name');
  return path;
}

/** The signed-in admin acting on the channel (signed links only read, and act as nobody). */
export const actorOf = (request: FastifyRequest): Actor => ({ adminId: authenticationOf(request).principal.id });
