import type { PrincipalLookup, PrincipalRecord, RevocationRecords } from '../store/types.ts';
import { BoundedCache } from './bounded-cache.ts';

const NOT_FOUND = Symbol('not-found');

/**
 * Principal records and revocations read through a short-lived cache. The cache lifetime is the
 * bound on how long a change made elsewhere (the CLI, another instance) takes to be enforced
 * here; changes made through this instance take effect at once.
 */
export class AuthState {
  private readonly principals: BoundedCache<PrincipalRecord | typeof NOT_FOUND>;
  private readonly revocations: BoundedCache<boolean>;
  private readonly localRevocations = new BoundedCache<true>(100_000);

  constructor(
    private readonly store: PrincipalLookup & RevocationRecords,
    private readonly refreshMs: number,
    cacheSize: number,
  ) {
    this.principals = new BoundedCache(cacheSize);
    this.revocations = new BoundedCache(cacheSize);
  }

  async principalRecord(wallet: string, now: number): Promise<PrincipalRecord | undefined> {
    const key = wallet.toLowerCase();
    const cached = this.principals.get(key, now);
    if (cached !== undefined) return cached === NOT_FOUND ? undefined : cached;
    const record = await this.store.loadPrincipalByWallet(key);
    this.principals.set(key, record ?? NOT_FOUND, now + this.refreshMs);
    return record;
  }

  async isRevoked(messageHash: string, now: number): Promise<boolean> {
    if (this.localRevocations.get(messageHash, now)) return true;
    const cached = this.revocations.get(messageHash, now);
    if (cached !== undefined) return cached;
    const revoked = await this.store.isMessageRevoked(messageHash);
    this.revocations.set(messageHash, revoked, now + this.refreshMs);
    return revoked;
  }

  async revoke(messageHash: string, until: number): Promise<void> {
    await this.store.revokeMessage(messageHash, until);
    this.localRevocations.set(messageHash, true, until);
    this.revocations.delete(messageHash);
  }
}
