import { adminNotFound } from '../errors/common-errors.ts';
import type { AdminRecords } from '../model/admins.ts';
import type { Channel, ChannelLookup } from '../model/channels.ts';
import { ambiguousChannels } from '../model/channels.ts';
import { requireChannelHeld, type TenantView } from './admin-rules.ts';

const CHANNEL_ID = /^chn_/;

/**
 * The acting admin and its tenant's admins as stored now, read once per request: every rule is
 * decided on these, not on the signed-in principal (which may be AUTH_STATE_REFRESH old).
 */
export async function tenantView(store: Pick<AdminRecords, 'getAdmin' | 'listAdmins'>, actorId: string): Promise<TenantView> {
  const actor = await store.getAdmin(actorId);
  if (actor === undefined || actor.removedAt !== null) throw adminNotFound(actorId);
  return { actor, admins: await store.listAdmins(actor.tenantId) };
}

/** The channel a reference (an id, or a name in the actor's tenant) names, if the actor holds it (see requireChannelHeld). */
export async function heldChannel(store: ChannelLookup, view: TenantView, ref: string): Promise<Channel> {
  let channel: Channel | undefined;
  if (CHANNEL_ID.test(ref)) channel = await store.getChannel(ref);
  else {
    const named = (await store.findChannelsNamed(view.actor.tenantId, ref)).filter((c) => requireHeldQuietly(view, c));
    if (named.length > 1) throw ambiguousChannels(ref, named);
    channel = named[0];
  }
  return requireChannelHeld(view, channel, ref);
}

function requireHeldQuietly(view: TenantView, channel: Channel): boolean {
  try {
    requireChannelHeld(view, channel, channel.id);
    return true;
  } catch {
    return false;
  }
}
