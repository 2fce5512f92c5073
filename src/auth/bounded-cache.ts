interface Entry<V> {
  value: V;
  expiresAt: number;
  /** When the entry was last (re)inserted, by the cache's own count. */
  stamp: number;
}

/**
 * A size-bounded LRU whose entries also carry their own expiry. Bounded so that a flood of
 * distinct (valid or not) credentials cannot grow memory; expiring so that nothing cached
 * outlives what it vouches for.
 *
 * Recency is kept in a queue of (key, stamp) beside the map, not in the map's own order: evicting
 * a Map's first key walks over every entry deleted before it, 8 µs an insertion in a full cache
 * of 10,000 (bench: auth-cold). A queued stamp that is no longer its key's is skipped.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private queueKeys: string[] = [];
  private queueStamps: number[] = [];
  private queueHead = 0;
  /** Counts insertions and refreshes; an entry's stamp says how recent it is. */
  private clock = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly maxEntries: number) {}

  /** `matches`, when given, must hold of the value too; an entry that fails it counts as a miss. */
  get(key: string, now: number, matches?: (value: V) => boolean): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.expiresAt <= now || (matches !== undefined && !matches(entry.value))) {
      if (entry !== undefined && entry.expiresAt <= now) this.entries.delete(key);
      this.misses++;
      return undefined;
    }
    // Marked as recently used only once it has drifted into the older half: a hot entry costs one
    // lookup per hit, and what is evicted is still never among the newer half of the entries.
    if (this.clock - entry.stamp > this.maxEntries >> 1) this.enqueue(key, entry);
    this.hits++;
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number): void {
    if (this.maxEntries <= 0) return;
    const entry: Entry<V> = { value, expiresAt, stamp: 0 };
    this.entries.set(key, entry);
    this.enqueue(key, entry);
    while (this.entries.size > this.maxEntries) this.evictOldest();
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  deleteWhere(predicate: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (predicate(entry.value)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private enqueue(key: string, entry: Entry<V>): void {
    entry.stamp = ++this.clock;
    this.queueKeys.push(key);
    this.queueStamps.push(entry.stamp);
    // Entries deleted or expired rather than evicted leave their stamps behind: rebuilt from the
    // live entries when stale ones outnumber them, so that the queue never outgrows the cache for long.
    if (this.queueKeys.length - this.queueHead > 2 * this.maxEntries + 1024) this.rebuildQueue();
  }

  private rebuildQueue(): void {
    const live = [...this.entries].sort(([, a], [, b]) => a.stamp - b.stamp);
    this.queueKeys = live.map(([key]) => key);
    this.queueStamps = live.map(([, entry]) => entry.stamp);
    this.queueHead = 0;
  }

  private evictOldest(): void {
    for (;;) {
      const key = this.queueKeys[this.queueHead]!;
      const stamp = this.queueStamps[this.queueHead]!;
      this.queueHead++;
      const entry = this.entries.get(key);
      if (entry !== undefined && entry.stamp === stamp) {
        this.entries.delete(key);
        break;
      }
    }
    // Drop the consumed front now and then, so that the queue stays about the size of the cache.
    if (this.queueHead > 1024 && this.queueHead * 2 > this.queueKeys.length) {
      this.queueKeys = this.queueKeys.slice(this.queueHead);
      this.queueStamps = this.queueStamps.slice(this.queueHead);
      this.queueHead = 0;
    }
  }
}
