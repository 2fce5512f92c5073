import type { Permission } from '../auth/permissions.ts';
import { hasPermission, type Principal } from '../auth/principal.ts';
import { AppError } from '../errors/app-error.ts';
import { safeSegment } from '../storage/safe-path.ts';
import type { AuditAction, Page, PageRequest } from '../store/file-catalog-types.ts';
import type { Channel, ChannelLookup, LinkedChannelListing } from '../store/types.ts';
import { type AuditTrail, type RequestedNames, requestedDetails } from './audit-trail.ts';
import { type FilePath, filePath } from './file-path.ts';

const CHANNEL_ID = /^chn_/;

/** What a request on a channel names: the channel, and the folder and file when it names them. */
interface ChannelRequest {
  channelRef: string;
  folder?: string | undefined;
  filename?: string | undefined;
}

/** A request on a channel whose caller is an admin. */
interface AdminChannelRequest extends ChannelRequest {
  permission: Permission;
  /**
   * Set for operations whose refusals belong in the channel's audit log (restores): the action
   * they are recorded as, and the rest of what the request asked for.
   */
  audited?: { action: AuditAction; asked?: Omit<RequestedNames, 'folder' | 'filename'> } | undefined;
}

/** The channel a request may act on, with its folder and file checked as every path is. */
export interface ChannelTarget {
  channel: Channel;
  folder: string | undefined;
  path: FilePath | undefined;
}

/**
 * The one gate of every request on a channel: whether the caller may see the channel (404), holds
 * the permission (403) and names a valid folder and file (400), in that order; for audited
 * operations, a refusal at any of these steps is written to the channel's audit log.
 */
export class ChannelAccess {
  constructor(
    private readonly channels: ChannelLookup & LinkedChannelListing,
    private readonly audit: AuditTrail,
  ) {}

  /**
   * The channels `open` lets the caller see: those linked to it in its own tenant, by name then
   * id. Read from the links themselves, so a link made or removed in the last AUTH_STATE_REFRESH
   * seconds may show here a moment before `open` (which reads the signed-in principal) agrees.
   */
  visibleChannels(principal: Principal, page: PageRequest): Promise<Page<Channel>> {
    return this.channels.listLinkedChannels(principal.tenantId, principal.id, page);
  }

  async open(principal: Principal, request: AdminChannelRequest): Promise<ChannelTarget> {
    let channel: Channel | undefined;
    try {
      channel = await this.visibleChannel(principal, request.channelRef);
      requirePermission(principal, request.permission);
      return { channel, ...locationOf(request) };
    } catch (error) {
      if (request.audited) await this.recordRefusal(principal, request, channel, error);
      throw error;
    }
  }

  /** The target of a signed link, which the caller has already verified: the link names the channel by id. */
  async openLinked(request: ChannelRequest): Promise<ChannelTarget> {
    const channel = await this.channels.getChannel(request.channelRef);
    if (!channel) throw new AppError('CHANNEL_NOT_FOUND', 'The channel of this link no longer exists');
    return { channel, ...locationOf(request) };
  }

  /**
   * A missing channel, another tenant's and one the caller is not linked to all get the same
   * 404, so that nobody learns which channels exist.
   */
  private async visibleChannel(principal: Principal, channelRef: string): Promise<Channel> {
    const channel = await this.namedChannel(principal, channelRef);
    if (channel === undefined || channel.tenantId !== principal.tenantId || !principal.channelIds.includes(channel.id)) {
      throw new AppError('CHANNEL_NOT_FOUND', `No channel "${channelRef.slice(0, 100)}" that this admin may use`);
    }
    return channel;
  }

  /** The channel a reference names, whether or not the caller may see it: an id in any tenant, a name in the caller's. */
  private namedChannel(principal: Principal, channelRef: string): Promise<Channel | undefined> {
    return CHANNEL_ID.test(channelRef)
      ? this.channels.getChannel(channelRef)
      : this.channels.findChannelByName(principal.tenantId, channelRef);
  }

  /**
   * A refusal before the caller could see the channel (not linked, another tenant's) is still an
   * attempt on that channel's files: its audit log gets it, the caller the usual 404.
   */
  private async recordRefusal(
    principal: Principal,
    request: AdminChannelRequest,
    seen: Channel | undefined,
    error: unknown,
  ): Promise<void> {
    const channel = seen ?? (await this.namedChannel(principal, request.channelRef));
    if (channel === undefined || request.audited === undefined) return;
    const details = requestedDetails({ folder: request.folder, filename: request.filename, ...request.audited.asked });
    await this.audit.stopped(channel, { adminId: principal.id }, request.audited.action, details, error);
  }
}

function requirePermission(principal: Principal, permission: Permission): void {
  if (!hasPermission(principal, permission)) {
    throw new AppError('PERMISSION_DENIED', `This admin lacks the permission ${permission} on this channel`);
  }
}

/** Checks the names once, at the edge; everything below takes them as safe. */
function locationOf(request: ChannelRequest): Omit<ChannelTarget, 'channel'> {
  if (request.folder === undefined) return { folder: undefined, path: undefined };
  if (request.filename === undefined) return { folder: safeSegment(request.folder, 'folder name'), path: undefined };
  const path = filePath(request.folder, request.filename);
  return { folder: path.folder, path };
}
