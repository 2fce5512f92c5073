import { Redis } from 'ioredis';
import type { Logger } from '../../logging/logger.ts';
import { type FailureLimiter, WINDOW_MS, windowOf } from './failure-limiter.ts';

const KEY_PREFIX = 'wallet-admin:auth-failures:';

/**
 * The limit shared by every instance through Redis: one counter per client and minute, expiring
 * with its window. When Redis cannot be reached the limit is not applied (and that is logged):
 * refusing every sign-in because a counter is unreachable would turn a Redis outage into a full one.
 */
export class RedisFailureLimiter implements FailureLimiter {
  private constructor(
    private readonly redis: Redis,
    private readonly limit: number,
  ) {}

  /** Connected before the service takes requests, so that its first failures count too. */
  static async open(url: string, limit: number, logger: Logger): Promise<RedisFailureLimiter> {
    // No offline queue: while Redis is away, calls fail at once instead of holding requests.
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: true });
    redis.on('error', (err) => logger.warn({ err }, 'Redis unreachable; the failed-authentication limit is not applied meanwhile'));
    await redis.connect().catch(() => undefined); // reported by the error handler; ioredis keeps retrying
    return new RedisFailureLimiter(redis, limit);
  }

  async blockedFor(client: string, now: number): Promise<number | undefined> {
    const { index, secondsLeft } = windowOf(now);
    try {
      const failures = Number(await this.redis.get(keyOf(client, index)));
      return failures >= this.limit ? secondsLeft : undefined;
    } catch {
      return undefined;
    }
  }

  async recordFailure(client: string, now: number): Promise<void> {
    const key = keyOf(client, windowOf(now).index);
    try {
      await this.redis
        .multi()
        .incr(key)
        .pexpire(key, 2 * WINDOW_MS)
        .exec();
    } catch {
      // logged by the connection's error handler
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

function keyOf(client: string, window: number): string {
  return `${KEY_PREFIX}${client}:${window}`;
}
