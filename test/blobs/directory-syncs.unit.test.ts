import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { DirectorySyncs } from '../../src/blobs/directory-syncs.ts';
import { fsyncDirectory } from '../../src/blobs/durable-directories.ts';

/**
 * An fsync that the test ends by hand: each call noted with the time it began, by a counter of
 * events; `lastEnded` is the index of the call that ended last (the one that releases its round).
 */
function manualFsync() {
  let clock = 0;
  const state = { lastEnded: -1 };
  const calls: { directory: string; began: number; end(error?: Error): void }[] = [];
  const fsync = (directory: string) =>
    new Promise<void>((resolve, reject) => {
      const index = calls.length;
      calls.push({
        directory,
        began: ++clock,
        end: (error) => {
          state.lastEnded = index;
          if (error) reject(error);
          else resolve();
        },
      });
    });
  return { calls, fsync, tick: () => ++clock, state };
}

/** Lets every promise callback already queued run (the rounds chain a few). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('DirectorySyncs: concurrent directory fsyncs grouped', () => {
  test('N calls during an fsync share the next one: fewer fsyncs, each caller released by an fsync that began after its call', async () => {
    const { calls, fsync, tick, state } = manualFsync();
    const syncs = new DirectorySyncs(fsync);
    const released: { called: number; by: number }[] = [];
    const call = () => {
      const called = tick();
      return syncs.sync('/d').then(() => released.push({ called, by: state.lastEnded }));
    };
    const first = call();
    assert.equal(calls.length, 1, 'the first call starts an fsync at once');
    // 31 more arrive while it is in flight: they must not be released by it (it began before them).
    const rest = Array.from({ length: 31 }, call);
    assert.equal(calls.length, 1, 'no fsync of their own while one is in flight');
    calls[0]!.end();
    await first;
    await settle();
    assert.deepEqual(released, [{ called: 1, by: 0 }], 'the in-flight fsync releases only the call it began after');
    assert.equal(calls.length, 2, 'the next fsync starts as soon as the one in flight ends');
    // A call during the second fsync waits for a third.
    const late = call();
    calls[1]!.end();
    await Promise.all(rest);
    await settle();
    assert.equal(released.length, 32);
    assert.equal(calls.length, 3);
    calls[2]!.end();
    await late;
    assert.equal(calls.length, 3, '33 calls, 3 fsyncs');
    for (const { called, by } of released)
      assert.ok(calls[by]!.began > called, `a caller (call ${called}) released by an fsync that began after it`);
    assert.deepEqual(
      released.map((r) => r.by),
      [0, ...Array(31).fill(1), 2],
      'the 31 calls made during the first fsync all released by the second',
    );
  });

  test('an fsync error reaches every caller of its round, and the next round still runs', async () => {
    const { calls, fsync } = manualFsync();
    const syncs = new DirectorySyncs(fsync);
    const first = syncs.sync('/d');
    const round = Array.from({ length: 5 }, () => syncs.sync('/d'));
    calls[0]!.end();
    await first;
    await settle();
    const late = syncs.sync('/d');
    const failure = Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    calls[1]!.end(failure);
    for (const outcome of await Promise.allSettled(round)) assert.deepEqual(outcome, { status: 'rejected', reason: failure });
    await settle();
    assert.equal(calls.length, 3, 'the calls made during the failed fsync get one of their own');
    calls[2]!.end();
    await late;
  });

  test('a synchronous throw of the fsync fails its round instead of escaping', async () => {
    const syncs = new DirectorySyncs(() => {
      throw new Error('EBADF');
    });
    await assert.rejects(syncs.sync('/d'), /EBADF/);
    await assert.rejects(syncs.sync('/d'), /EBADF/, 'and the directory is free for the next call');
  });

  test('directories do not wait for each other', async () => {
    const { calls, fsync } = manualFsync();
    const syncs = new DirectorySyncs(fsync);
    const a = syncs.sync('/a');
    const b = syncs.sync('/b');
    assert.deepEqual(
      calls.map((c) => c.directory),
      ['/a', '/b'],
    );
    calls[1]!.end();
    await b;
    calls[0]!.end();
    await a;
  });

  test('fsyncDirectory: concurrent calls on a real directory all settle, and a missing one fails each caller', async (t) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'dirsyncs-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        await writeFile(path.join(dir, `f${i}`), 'x');
        await fsyncDirectory(dir);
      }),
    );
    const missing = path.join(dir, 'missing');
    const outcomes = await Promise.allSettled(Array.from({ length: 3 }, () => fsyncDirectory(missing)));
    for (const outcome of outcomes) assert.equal(outcome.status === 'rejected' && (outcome.reason as { code?: string }).code, 'ENOENT');
  });
});
