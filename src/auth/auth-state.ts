import type { PrincipalLookup, PrincipalRecord } from '../model/admins.ts';
import type { RevocationRecords } from '../model/sign-in-records.ts';
import { BoundedCache } from './bounded-cache.ts';

const NOT_FOUND = Symbol('not-found');

/**
 * How far back each look at the revocations reaches before the previous one: a revocation carries
 * the clock of the instance that made it, which may run behind this one's.
 */
const REVOCATION_OVERLAP_MS = 5 * 60_000;

/**
 * Principal records and revocations as this instance knows them, never older than `refreshMs`:
 * that bound is how long a change made elsewhere (the CLI, another instance) takes to be enforced
 * here; changes made through this instance take effect at once.
 *
 * Revocations are held in memory and refreshed at most once per `refreshMs` with those made since
 * the previous look, rather than looked up per new message: a logout is rare, a sign-in is not.
 * Each entry stays until its message expires (about 100 bytes each).
 */
export class AuthState {
  private readonly principals: BoundedCache<PrincipalRecord | typeof NOT_FOUND>;
  /** Message hash → when that message expires, after which its revocation means nothing. */
  private readonly revoked = new Map<string, number>();
  private revocationsCheckedAt = Number.NEGATIVE_INFINITY;
  private revocationsLoadedSince = 0;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly store: PrincipalLookup & RevocationRecords,
    private readonly refreshMs: number,
    cacheSize: number,
  ) {
    this.principals = new BoundedCache(cacheSize);
  }

  async principalRecord(wallet: string, now: number): Promise<PrincipalRecord | undefined> {
    const key = wallet.toLowerCase();
    const cached = this.principals.get(key, now);
    if (cached !== undefined) return cached === NOT_FOUND ? undefined : cached;
    const record = await this.store.loadPrincipalByWallet(key);
    this.principals.set(key, record ?? NOT_FOUND, now + this.refreshMs);
    return record;
  }

  /** Read afresh on the next request: the admin of this wallet changed through this instance. */
  forgetPrincipal(wallet: string): void {
    this.principals.delete(wallet.toLowerCase());
  }

  async isRevoked(messageHash: string, now: number): Promise<boolean> {
    if (now - this.revocationsCheckedAt >= this.refreshMs) await this.refreshRevocations(now);
    const expiresAt = this.revoked.get(messageHash);
    return expiresAt !== undefined && expiresAt > now;
  }

  async revoke(messageHash: string, until: number, now: number): Promise<void> {
    await this.store.revokeMessage(messageHash, until, now);
    this.remember(messageHash, until);
  }

  /** One look at the store for every request that finds the set stale at once. */
  private refreshRevocations(now: number): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const since = this.revocationsLoadedSince;
        for (const { messageHash, expiresAt } of await this.store.revocationsSince(since, now)) this.remember(messageHash, expiresAt);
        for (const [hash, expiresAt] of this.revoked) if (expiresAt <= now) this.revoked.delete(hash);
        this.revocationsLoadedSince = Math.max(0, now - REVOCATION_OVERLAP_MS);
        this.revocationsCheckedAt = now;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  private remember(messageHash: string, expiresAt: number): void {
    this.revoked.set(messageHash, Math.max(expiresAt, this.revoked.get(messageHash) ?? 0));
  }
}
