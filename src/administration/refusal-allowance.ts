/** Refusals recorded per admin: a burst of this many, then one more every REFILL_MS. */
const BURST = 10;
const REFILL_MS = 6_000;
/** Admins tracked at once; the least recently refused is forgotten first (it starts a fresh allowance). */
const MAX_ADMINS = 10_000;

/**
 * How many of an admin's refusals the audit log records: a token bucket per admin (10 at once, then
 * 10 a minute), so that a script hammering a refused request cannot flood its tenant's chain. Those
 * not recorded are counted, and the next recorded refusal says how many. Per instance: each
 * instance of a scaled-out service records its own allowance.
 */
export class RefusalAllowance {
  private readonly buckets = new Map<string, { tokens: number; at: number; notRecorded: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Undefined when this refusal goes unrecorded; otherwise how many went unrecorded before it. */
  take(adminId: string): { notRecorded: number } | undefined {
    const now = this.now();
    const bucket = this.buckets.get(adminId) ?? { tokens: BURST, at: now, notRecorded: 0 };
    this.buckets.delete(adminId);
    bucket.tokens = Math.min(BURST, bucket.tokens + (now - bucket.at) / REFILL_MS);
    bucket.at = now;
    this.buckets.set(adminId, bucket);
    if (this.buckets.size > MAX_ADMINS) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens < 1) {
      bucket.notRecorded++;
      return undefined;
    }
    bucket.tokens -= 1;
    const notRecorded = bucket.notRecorded;
    bucket.notRecorded = 0;
    return { notRecorded };
  }
}
