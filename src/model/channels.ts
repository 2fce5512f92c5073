import { AppError } from '../errors/app-error.ts';
import { spelledOut } from '../names/name-form.ts';
import type { Page, PageRequest } from './paging.ts';

/** Channels: a tenant's named collections of files, each linked to the admins who may use it. */

export interface Channel {
  id: string; // chn_…
  tenantId: string;
  name: string;
  createdAt: number;
  /** When the channel was archived (read-only: its files are read, never changed); null: it is not. */
  archivedAt: number | null;
}

/** Finding the channel a request or a command names. */
export interface ChannelLookup {
  getChannel(id: string): Promise<Channel | undefined>;
  /** Every channel of the tenant stored under that name or a look-alike spelling of it (an older release's): none, one, or look-alikes. */
  findChannelsNamed(tenantId: string, name: string): Promise<Channel[]>;
}

/** The channels an admin may use: what `GET /api/channels` lists. */
export interface LinkedChannelListing {
  /** The admin's linked channels in the tenant, by name then id, a page at a time. */
  listLinkedChannels(tenantId: string, adminId: string, page: PageRequest): Promise<Page<Channel>>;
}

export interface ChannelRecords extends ChannelLookup, LinkedChannelListing {
  createChannel(input: { tenantId: string; name: string }): Promise<Channel>;
  listChannels(tenantId: string): Promise<Channel[]>;
  /** The tenant's channel of that name (in any spelling: NFC, or another an older release stored); NAME_AMBIGUOUS when two look alike. */
  findChannelByName(tenantId: string, name: string): Promise<Channel | undefined>;
  /** The channels of that name in every tenant (names are unique per tenant only), oldest first. */
  findChannelsByName(name: string): Promise<Channel[]>;
  /** True when this call made the link; false when it was there already (then nothing changed). */
  linkChannel(channelId: string, adminId: string): Promise<boolean>;
  /** True when this call removed the link; false when there was none (then nothing changed). */
  unlinkChannel(channelId: string, adminId: string): Promise<boolean>;
  /** CHANNEL_NAME_TAKEN when another channel of the tenant has that name (in any spelling). */
  renameChannel(id: string, name: string): Promise<Channel>;
  setChannelArchived(id: string, archived: boolean): Promise<Channel>;
  /** The ids of the admins linked to the channel, sorted. */
  listChannelAdminIds(channelId: string): Promise<string[]>;
}

/** Two channels of a tenant whose names an older release stored in look-alike spellings: name them by id. */
export function ambiguousChannels(name: string, channels: Channel[]): AppError {
  const listed = channels.map((c) => `${c.id} (${spelledOut(c.name)})`).join(' and ');
  return new AppError(
    'NAME_AMBIGUOUS',
    `"${name.trim()}" names ${channels.length} channels that look the same, stored by an older release under different spellings: ${listed}. Name the channel by its id`,
    { lookalikes: channels.map((c) => ({ id: c.id, name: c.name, spelling: spelledOut(c.name) })) },
  );
}
