/**
 * Counts failed authentications per client address in fixed one-minute windows. Keyed by the
 * address the request came from, never by a wallet it merely claims: otherwise anyone could lock
 * any admin out by failing in their name.
 */
export interface FailureLimiter {
  /**
   * Seconds until the client may try again, or undefined when it is not blocked; at once where the
   * counts are in memory (no promise on every signed-in request), a promise where they are not.
   */
  blockedFor(client: string, now: number): number | undefined | Promise<number | undefined>;
  recordFailure(client: string, now: number): Promise<void>;
  close(): Promise<void>;
}

export const WINDOW_MS = 60_000;

export function windowOf(now: number): { index: number; secondsLeft: number } {
  const index = Math.floor(now / WINDOW_MS);
  return { index, secondsLeft: Math.max(1, Math.ceil(((index + 1) * WINDOW_MS - now) / 1000)) };
}
