import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedCache } from '../../src/auth/bounded-cache.ts';

describe('BoundedCache', () => {
  it('never holds more than its bound, whatever is inserted', () => {
    const cache = new BoundedCache<number>(100);
    for (let i = 0; i < 10_000; i++) cache.set(`k${i}`, i, Infinity);
    assert.equal(cache.size, 100);
    assert.equal(cache.get('k9999', 0), 9999);
    assert.equal(cache.get('k9899', 0), undefined);
  });

  it('forgets an entry at its expiry and counts hits and misses', () => {
    const cache = new BoundedCache<string>(10);
    cache.set('a', 'A', 1000);
    assert.equal(cache.get('a', 999), 'A');
    assert.equal(cache.get('a', 1000), undefined);
    assert.equal(cache.size, 0);
    assert.deepEqual([cache.hits, cache.misses], [1, 1]);
  });

  it('keeps an entry that is read while others are inserted (least recently used goes first)', () => {
    const cache = new BoundedCache<number>(100);
    cache.set('hot', -1, Infinity);
    for (let i = 0; i < 1000; i++) {
      cache.set(`cold${i}`, i, Infinity);
      assert.equal(cache.get('hot', 0), -1, `evicted after ${i} insertions`);
    }
    // Of the cold entries only the newest survive, and never one of the newest half.
    assert.equal(cache.size, 100);
    for (let i = 950; i < 1000; i++) assert.equal(cache.get(`cold${i}`, 0), i);
    assert.equal(cache.get('cold0', 0), undefined);
  });

  it('evicts the entry not read for longest rather than one read recently', () => {
    const cache = new BoundedCache<number>(4);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, 0, Infinity);
    cache.set('e', 0, Infinity); // a goes
    assert.equal(cache.get('b', 0), 0); // b is now in the older half: read, it moves to the front
    cache.set('f', 0, Infinity); // c goes, not b
    assert.equal(cache.get('a', 0), undefined);
    assert.equal(cache.get('c', 0), undefined);
    assert.equal(cache.get('b', 0), 0);
  });

  it('keeps its order through heavy churn of deletions, expiries and re-insertions of the same keys', () => {
    const cache = new BoundedCache<number>(50);
    // Far more stale queue entries than live ones: the cache must still evict exactly the least recent.
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 50; i++) cache.set(`k${i}`, round, round % 3 === 0 ? 0 : Infinity);
      for (let i = 0; i < 50; i += 2) cache.delete(`k${i}`);
    }
    for (let i = 0; i < 50; i++) cache.set(`k${i}`, -1, Infinity);
    for (let i = 0; i < 10; i++) cache.set(`new${i}`, i, Infinity);
    assert.equal(cache.size, 50);
    for (let i = 0; i < 10; i++) assert.equal(cache.get(`k${i}`, 1), undefined, `k${i}, the oldest, went first`);
    for (let i = 10; i < 50; i++) assert.equal(cache.get(`k${i}`, 1), -1);
    for (let i = 0; i < 10; i++) assert.equal(cache.get(`new${i}`, 1), i);
  });

  it('stores nothing with a bound of 0', () => {
    const cache = new BoundedCache<number>(0);
    cache.set('a', 1, Infinity);
    assert.equal(cache.get('a', 0), undefined);
  });
});
