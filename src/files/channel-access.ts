import { hasPermission, type Principal } from '../auth/principal.ts';
import { AppError } from '../errors/app-error.ts';
import type { AuditAction } from '../model/audit.ts';
import type { Channel, ChannelLookup, LinkedChannelListing } from '../model/channels.ts';
import { ambiguousChannels } from '../model/channels.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import type { Permission } from '../model/permissions.ts';
import { type AuditTrail, type RequestedNames, requestedDetails } from './audit-trail.ts';
import { type FilePath, filePath, folderName } from './file-path.ts';

const CHANNEL_ID = /^chn_/;

/** What an archived channel refuses: uploads, deletes and restores. Reads, downloads and backups go on. */
const CHANGES_FILES: ReadonlySet<Permission> = new Set(['files:write', 'files:restore']);

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
 * the permission (403) and names a valid folder and file (400), in that order. For audited
 * operations, a refusal on a channel the caller can see is written to its audit log; a 404 nowhere.
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
    // A channel the caller may not see is refused before anything else, and nowhere recorded: its
    // audit log belongs to its own tenant, and a record there (or its cost) would tell a channel
    // that exists from one that does not.
    const channel = await this.visibleChannel(principal, request.channelRef);
    try {
      requirePermission(principal, request.permission);
      if (channel.archivedAt !== null && CHANGES_FILES.has(request.permission)) {
        throw new AppError(
          'CHANNEL_ARCHIVED',
          'This channel is archived: its files are read-only until an admin with channels:manage unarchives it',
        );
      }
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
   * 404 at the same cost, so that nobody learns which channels exist: an id is looked up only when
   * the caller is linked to it, a name only among the caller's own tenant's channels.
   */
  private async visibleChannel(principal: Principal, channelRef: string): Promise<Channel> {
    const channel = CHANNEL_ID.test(channelRef)
      ? principal.channelIds.includes(channelRef)
        ? await this.channels.getChannel(channelRef)
        : undefined
      : await this.linkedChannelNamed(principal, channelRef);
    if (channel === undefined || channel.tenantId !== principal.tenantId || !principal.channelIds.includes(channel.id)) {
      throw new AppError('CHANNEL_NOT_FOUND', `No channel "${channelRef.slice(0, 100)}" that this admin may use`);
    }
    return channel;
  }

  /**
   * The caller's channel of that name, in any spelling (an older release may have stored it in
   * NFD): of look-alikes, only those linked to the caller count, so that a refusal naming two never
   * names a channel the caller may not see.
   */
  private async linkedChannelNamed(principal: Principal, name: string): Promise<Channel | undefined> {
    const named = await this.channels.findChannelsNamed(principal.tenantId, name);
    const linked = named.filter((channel) => principal.channelIds.includes(channel.id));
    if (linked.length > 1) throw ambiguousChannels(name, linked);
    return linked[0] ?? named[0];
  }

  /** A refusal on a channel the caller can see (a missing permission, a bad name): that channel's audit log gets it. */
  private async recordRefusal(principal: Principal, request: AdminChannelRequest, channel: Channel, error: unknown): Promise<void> {
    if (request.audited === undefined) return;
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
  if (request.filename === undefined) return { folder: folderName(request.folder), path: undefined };
  const path = filePath(request.folder, request.filename);
  return { folder: path.folder, path };
}
