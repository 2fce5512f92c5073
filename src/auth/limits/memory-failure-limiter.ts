import { BoundedCache } from '../bounded-cache.ts';
import { type FailureLimiter, WINDOW_MS, windowOf } from './failure-limiter.ts';

/** Clients tracked at once; a flood from many addresses evicts the oldest, never grows memory. */
const MAX_CLIENTS = 100_000;

/** The limit of one process, when there is no Redis to share it. */
export class MemoryFailureLimiter implements FailureLimiter {
  private readonly counts = new BoundedCache<{ window: number; failures: number }>(MAX_CLIENTS);

  constructor(private readonly limit: number) {}

  blockedFor(client: string, now: number): number | undefined {
    const { index, secondsLeft } = windowOf(now);
    const entry = this.counts.get(client, now);
    return entry !== undefined && entry.window === index && entry.failures >= this.limit ? secondsLeft : undefined;
  }

  async recordFailure(client: string, now: number): Promise<void> {
    const { index } = windowOf(now);
    const entry = this.counts.get(client, now);
    const failures = entry !== undefined && entry.window === index ? entry.failures + 1 : 1;
    this.counts.set(client, { window: index, failures }, (index + 1) * WINDOW_MS);
  }

  async close(): Promise<void> {}
}
