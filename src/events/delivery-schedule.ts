/** The first pause after a failed attempt; each next one doubles, up to EVENTS_BACKOFF_MAX. */
const FIRST_DELAY_MS = 1000;

/**
 * The pause before attempt `attempts + 1` (docs/events.md, "Delivery"): exponential, capped, and
 * jittered over its upper half, so that the pairs a destination's outage stalled do not all come
 * back in the same instant when it recovers.
 */
export function retryDelay(attempts: number, maxMs: number, random: () => number = Math.random): number {
  const first = Math.min(FIRST_DELAY_MS, maxMs);
  const ceiling = Math.min(maxMs, first * 2 ** Math.min(attempts - 1, 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
