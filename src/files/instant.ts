import { AppError } from '../errors/app-error.ts';
import type { Channel } from '../model/channels.ts';
import type { ChannelHistory } from '../model/history.ts';
import { formatRfc3339, parseInstant } from '../time/rfc3339.ts';

/** An instant of a channel's history, resolved: the seq whose state it names, and the time asked. */
export interface ResolvedInstant {
  seq: number;
  at: number;
  /** `at` in RFC 3339, as the audit log records an instant resolved once for many files. */
  written: string;
}

/**
 * The channel's state at an RFC 3339 instant (`name`: the parameter, for the messages). Malformed
 * or in the future (after `now`) → VALIDATION_FAILED; older than retention still holds completely
 * → INSTANT_NOT_RETAINED, naming the oldest instant that is.
 */
export async function resolveInstant(
  catalog: ChannelHistory,
  channelId: string,
  value: string,
  now: number,
  name = 'at',
): Promise<ResolvedInstant> {
  const at = parseInstant(value, name);
  if (at > now) throw new AppError('VALIDATION_FAILED', `${name} (${value.slice(0, 40)}) is in the future; the newest state is now`);
  const resolution = await catalog.seqAt(channelId, at);
  if (!resolution.retained) {
    throw new AppError(
      'INSTANT_NOT_RETAINED',
      `The channel's state at ${formatRfc3339(at)} is no longer retained; the oldest retained instant is ${formatRfc3339(resolution.oldestRetainedAt)}`,
    );
  }
  return { seq: resolution.seq, at, written: formatRfc3339(at) };
}

/**
 * An instant to restore to: as resolveInstant, and INSTANT_BEFORE_CHANNEL when it comes before the
 * channel was created. The state then is the empty channel, which a restore would make by
 * deleting everything: what a mistyped year (1970, 2006) asks for by accident, never on purpose.
 */
export async function resolveRestorableInstant(
  catalog: ChannelHistory,
  channel: Pick<Channel, 'id' | 'createdAt'>,
  value: string,
  now: number,
): Promise<ResolvedInstant> {
  const instant = await resolveInstant(catalog, channel.id, value, now);
  if (instant.at < channel.createdAt) {
    throw new AppError(
      'INSTANT_BEFORE_CHANNEL',
      `at (${formatRfc3339(instant.at)}) is before the channel was created (${formatRfc3339(channel.createdAt)}); nothing to restore from then`,
      { channelCreatedAt: formatRfc3339(channel.createdAt) },
    );
  }
  return instant;
}
