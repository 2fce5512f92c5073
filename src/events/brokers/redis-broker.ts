import { Redis } from 'ioredis';
import {
  addressTokens,
  type BrokerLogger,
  type EventBroker,
  type OutgoingEvent,
  publishError,
  redactedMessage,
  redactedUrl,
  SILENT_LOGGER,
  withTimeout,
} from './event-broker.ts';

const SETTING = 'EVENTS_REDIS_URL';
// Redis takes any bytes in a key; the prefix is still kept to printable tokens so that the keys
// read well in redis-cli and a SCAN pattern on them needs no escaping.
const STREAM_PREFIX = /^[A-Za-z0-9_.:-]+$/;

export interface RedisBrokerOptions {
  /** redis://[user:pass@]host:port/db (or rediss://). */
  url: string;
  /** First part of every stream key. */
  streamPrefix: string;
  /** Each stream keeps about this many entries (MAXLEN ~): older ones are trimmed as Redis sees fit. */
  maxLen: number;
  logger?: BrokerLogger;
}

/**
 * The stream an event is added to: `<prefix>:<tenantId>:<channelId or '_'>`. One stream per tenant
 * and channel rather than per type: a consumer group reads one tenant's or channel's events in
 * their order, and the type is a field of each entry (streams have no wildcard subscription, so
 * per-type keys would split one history into many). ':' is Redis's usual key separator; the ids
 * hold none.
 */
export function redisStreamKey(prefix: string, event: Pick<OutgoingEvent, 'tenantId' | 'channelId' | 'type'>): string {
  const { tenant, channel } = addressTokens(event);
  return `${prefix}:${tenant}:${channel}`;
}

/**
 * Appends each event to a Redis stream: `XADD <key> MAXLEN ~ <maxLen> * id <event id> type <type>
 * event <body>`; publish resolves on the reply (the entry is in Redis's memory, and on disk as its
 * appendonly setting says). Consumers deduplicate by the `id` field: a retry after a lost reply
 * adds the event again under a new entry id.
 *
 * Connects on the first publish; ioredis then reconnects with backoff for ever. Nothing is queued
 * while Redis is away (no offline queue): publish waits for the connection until its deadline and
 * then rejects, and a command whose connection drops is failed at once rather than silently resent
 * on the next connection, so that the caller, not the client, decides on the retry.
 */
export function openRedisBroker(options: RedisBrokerOptions): EventBroker {
  const { url, maxLen } = options;
  const logger = options.logger ?? SILENT_LOGGER;
  if (!STREAM_PREFIX.test(options.streamPrefix)) {
    throw new Error(`Redis stream prefix ${JSON.stringify(options.streamPrefix)} must be of [A-Za-z0-9_.:-]`);
  }
  if (!Number.isSafeInteger(maxLen) || maxLen < 1) throw new Error(`Redis stream length ${maxLen} must be a positive integer`);
  const where = { broker: 'redis', url: redactedUrl(url) };

  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    connectTimeout: 10_000,
    // A command unanswered for 10 s means a half-open connection (no reset came): ioredis destroys
    // it and reconnects, where publish's own deadline only stops waiting.
    socketTimeout: 10_000,
    connectionName: 'wallet-admin-events',
    // Up to 2 s apart (plus jitter, so that instances do not reconnect in step): an outage's end
    // is noticed within about two seconds.
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 10), 2000) + Math.floor(Math.random() * 200),
  });
  // One warning per outage, one line when it ends: ioredis reports an error at every attempt.
  let outage = false;
  let closing = false;
  redis.on('error', (err: unknown) => {
    if (outage || closing) return;
    outage = true;
    logger.warn({ ...where, error: redactedMessage(err) }, 'Redis unreachable for event delivery; reconnecting');
  });
  redis.on('close', () => {
    if (outage || closing) return;
    outage = true;
    logger.warn(where, 'Redis connection for event delivery lost; reconnecting');
  });
  redis.on('ready', () => {
    outage = false;
    logger.info(where, 'Connected to Redis for event delivery');
  });

  /**
   * Resolves once the connection is ready, rejects at the next failed attempt (refused, or refused
   * credentials: the reason is more use to the caller than a timeout); `cancel` stops waiting.
   */
  const whenReady = (): { ready: Promise<void>; cancel: () => void } => {
    if (redis.status === 'ready') return { ready: Promise.resolve(), cancel: () => {} };
    let cancel = () => {};
    const ready = new Promise<void>((resolve, reject) => {
      const onReady = () => {
        cancel();
        resolve();
      };
      const onError = (err: unknown) => {
        cancel();
        reject(err);
      };
      cancel = () => {
        redis.off('ready', onReady);
        redis.off('error', onError);
      };
      redis.once('ready', onReady);
      redis.once('error', onError);
    });
    // The first publish opens the connection; ioredis retries a failed one on its own.
    if (redis.status === 'wait') redis.connect().catch(() => undefined);
    return { ready, cancel };
  };

  return {
    setting: SETTING,
    async publish(event, timeoutMs) {
      if (closing) throw publishError(SETTING, url, new Error('the broker is closed'));
      const key = redisStreamKey(options.streamPrefix, event);
      const { ready, cancel } = whenReady();
      const work = (async () => {
        await ready;
        await redis.xadd(key, 'MAXLEN', '~', String(maxLen), '*', 'id', event.id, 'type', event.type, 'event', event.body);
      })().catch((err: unknown) => {
        throw publishError(SETTING, url, err);
      });
      await withTimeout(work, timeoutMs, () => publishError(SETTING, url, new Error(`no XADD reply within ${timeoutMs} ms`)), cancel);
    },
    async close() {
      closing = true;
      // Nothing of ours is pending that a QUIT would wait for: every publish has its own caller.
      redis.disconnect();
    },
  };
}
