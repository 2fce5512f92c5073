import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { isOwnerPrincipal } from '../../../auth/principal.ts';
import { AppError } from '../../../errors/app-error.ts';
import type { Actor } from '../../../files/audit-trail.ts';
import type { LockActor } from '../../../files/backup-locks.ts';
import type { ChannelAccess, ChannelTarget } from '../../../files/channel-access.ts';
import type { FilePath } from '../../../files/file-path.ts';
import type { LinkSigner } from '../../../files/signed-links.ts';
import type { Channel } from '../../../model/channels.ts';
import type { Permission } from '../../../model/permissions.ts';
import { authenticationOf } from '../../auth/wallet-auth.ts';
import { lookUpChannel, type RefusalAudit } from './channel-lookup.ts';
import { linkedTarget } from './signed-link.ts';

/** How a route enters its channel, declared in its own options (`preHandler: app.enterChannel({…})`). */
export interface ChannelEntry {
  /** The permission the route needs on the channel its :channelRef names. */
  permission: Permission;
  /** A signed link (?expires&signature, from a restore) may stand in for the wallet. */
  signedLinks?: boolean;
  /** Checks the body once the caller is known, before the channel: a malformed request is refused as such, unaudited. */
  checkBody?: (body: unknown) => void;
  /** What a refusal (channel, permission, path) writes to the channel's audit log; without it, nothing. */
  auditRefusals?: (request: FastifyRequest) => RefusalAudit;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The preHandler of a route of the channel scope: see ChannelEntry. */
    enterChannel(entry: ChannelEntry): preHandlerAsyncHookHandler;
  }
  interface FastifyRequest {
    channelTarget: ChannelTarget | null;
  }
}

interface ChannelScopeOptions {
  access: ChannelAccess;
  linkSigner: LinkSigner | undefined;
}

/**
 * Every route on a channel is registered in this scope, and enters its channel through the
 * preHandler `app.enterChannel` makes of what it declares: a signed link accepted (signed-link.ts),
 * else the caller signed in (requireWallet), the body checked, and the channel, the permission and
 * the folder and file named looked up (channel-lookup.ts), each a job of its own, before any
 * handler runs; the handlers read the outcome with channelOf/filePathOf.
 */
async function channelScope(app: FastifyInstance, { access, linkSigner }: ChannelScopeOptions): Promise<void> {
  app.decorateRequest('channelTarget', null);
  const entries = new WeakSet<object>();

  app.decorate('enterChannel', function enterChannel(entry: ChannelEntry): preHandlerAsyncHookHandler {
    const { permission, signedLinks, checkBody, auditRefusals } = entry;
    const hook = async function enterChannelHook(request: FastifyRequest, reply: FastifyReply) {
      const linked = signedLinks ? await linkedTarget(access, linkSigner, request) : undefined;
      if (linked !== undefined) {
        request.channelTarget = linked;
        return;
      }
      await new Promise<void>((resolve, reject) =>
        app.requireWallet.call(app, request, reply, (error?: Error) => (error === undefined ? resolve() : reject(error))),
      );
      checkBody?.(request.body);
      request.channelTarget = await lookUpChannel(access, request, permission, auditRefusals?.(request));
    };
    entries.add(hook);
    return hook;
  });

  // A route here that does not enter its channel would be open to any caller: refused at start-up.
  app.addHook('onRoute', (route: RouteOptions) => {
    if (![route.preHandler].flat().some((hook) => hook !== undefined && entries.has(hook)))
      throw new Error(`Route ${String(route.method)} ${route.url} is in the channel scope without app.enterChannel`);
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
export const actorOf = (request: FastifyRequest): Actor & { adminId: string } => ({ adminId: authenticationOf(request).principal.id });

/**
 * The signed-in admin acting on a backup's lock, with what its standing lets it lift: an owner, or
 * another admin. Read from the signed-in principal, as the route's permission is: at most
 * AUTH_STATE_REFRESH seconds old.
 */
export function lockActorOf(request: FastifyRequest): LockActor {
  const { principal } = authenticationOf(request);
  return { adminId: principal.id, authority: isOwnerPrincipal(principal) ? 'owner' : 'admin' };
}
