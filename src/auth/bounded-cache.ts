/**
 * A size-bounded LRU whose entries also carry their own expiry. Bounded so that a flood of
 * distinct (valid or not) credentials cannot grow memory; expiring so that nothing cached
 * outlives what it vouches for.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number; stamp: number }>();
  /** Counts insertions; an entry's stamp says how recently it was (re)inserted. */
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
    // Re-insert to mark as most recently used (Map keeps insertion order) — only once the entry
    // has drifted into the older half: a hot entry then costs one lookup per hit, not three, and
    // what is evicted is still never among the newer half of the entries.
    if (this.clock - entry.stamp > this.maxEntries >> 1) {
      this.entries.delete(key);
      entry.stamp = ++this.clock;
      this.entries.set(key, entry);
    }
    this.hits++;
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number): void {
    if (this.maxEntries <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt, stamp: ++this.clock });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
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
}
