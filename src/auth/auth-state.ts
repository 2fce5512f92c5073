import type { PrincipalLookup, PrincipalRecord } from '../model/admins.ts';
import type { RevocationRecords } from '../model/sign-in-records.ts';
import { BoundedCache } from './bounded-cache.ts';

const NOT_FOUND = Symbol('not-found');

interface KnownPrincipal {
  record: PrincipalRecord | typeof NOT_FOUND;
  /** Until when it is used without a look at the store. */
  freshUntil: number;
}

/** Two loads of one wallet's record that read the same (records are plain data, their members in one order). */
function sameRecord(a: PrincipalRecord | typeof NOT_FOUND, b: PrincipalRecord | typeof NOT_FOUND): boolean {
  if (a === NOT_FOUND || b === NOT_FOUND) return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

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
  /**
   * Kept past their refresh (the cache bounds their number), so that a reload that finds the record
   * unchanged keeps the very object: the Principal built from it and the answers kept for it
   * (CredentialAnswers) stay valid, instead of being built again after every AUTH_STATE_REFRESH.
   */
  private readonly principals: BoundedCache<KnownPrincipal>;
  /** One load per wallet at a time: the requests that find a record stale together wait for the same one. */
  private readonly loading = new Map<string, Promise<PrincipalRecord | undefined>>();
  /** Counts forgetPrincipal calls: a load that saw one happen while it ran keeps nothing. */
  private forgotten = 0;
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

  /**
   * The wallet's record as known within `refreshMs` (NOT_FOUND: no admin has it), or a promise of
   * it when it must be read: a known record costs no promise, which at one per request shows.
   */
  principalRecord(wallet: string, now: number): PrincipalRecord | undefined | Promise<PrincipalRecord | undefined> {
    const key = wallet.toLowerCase();
    const known = this.principals.get(key, now);
    if (known !== undefined && known.freshUntil > now) return known.record === NOT_FOUND ? undefined : known.record;
    const pending = this.loading.get(key);
    if (pending !== undefined) return pending;
    const loading = this.load(key, known, now, this.forgotten);
    this.loading.set(key, loading);
    const settled = () => {
      if (this.loading.get(key) === loading) this.loading.delete(key);
    };
    loading.then(settled, settled);
    return loading;
  }

  private async load(key: string, known: KnownPrincipal | undefined, now: number, forgotten: number): Promise<PrincipalRecord | undefined> {
    const loaded = (await this.store.loadPrincipalByWallet(key)) ?? NOT_FOUND;
    const record = known !== undefined && sameRecord(known.record, loaded) ? known.record : loaded;
    // A load that began before a forgetPrincipal may have read the record before the change: not kept.
    if (forgotten === this.forgotten) this.principals.set(key, { record, freshUntil: now + this.refreshMs }, Number.POSITIVE_INFINITY);
    return record === NOT_FOUND ? undefined : record;
  }

  /** Read afresh on the next request: the admin of this wallet changed through this instance. */
  forgetPrincipal(wallet: string): void {
    const key = wallet.toLowerCase();
    this.forgotten++;
    this.principals.delete(key);
    this.loading.delete(key);
  }

  /** Whether the message was logged out; a promise only when the revocations must be looked at again. */
  isRevoked(messageHash: string, now: number): boolean | Promise<boolean> {
    if (now - this.revocationsCheckedAt >= this.refreshMs)
      return this.refreshRevocations(now).then(() => this.revokedNow(messageHash, now));
    return this.revokedNow(messageHash, now);
  }

  private revokedNow(messageHash: string, now: number): boolean {
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
