import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { isAppError } from '../../src/errors/app-error.ts';
import type { BlobStorage } from '../../src/storage/blob-storage.ts';

export interface OpenedStorage {
  storage: BlobStorage;
  cleanup(): Promise<void>;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function bytesOf(storage: BlobStorage, key: string, range?: { start: number; end: number }): Promise<Buffer | undefined> {
  const body = await storage.get(key, range);
  return body && Buffer.concat(await body.toArray());
}

async function assertRefused(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => isAppError(error) && error.code === code);
}

/** A body that arrives in many chunks, as an upload does. */
function chunked(data: Buffer, chunkSize = 64 * 1024): Readable {
  return Readable.from((function* () {
    for (let offset = 0; offset < data.length; offset += chunkSize) yield data.subarray(offset, offset + chunkSize);
  })());
}

/**
 * What every BlobStorage promises, whatever holds the bytes. Each backend runs this same suite
 * (the disk one now, S3 later), so a caller can rely on exactly these behaviours.
 */
export function describeBlobStorageContract(name: string, open: () => Promise<OpenedStorage>): void {
  describe(`BlobStorage contract: ${name}`, () => {
    let opened: OpenedStorage;
    let storage: BlobStorage;
    let n = 0;
    const fresh = (prefix = 'k') => `${prefix}${++n}`;

    before(async () => {
      opened = await open();
      storage = opened.storage;
    });
    after(() => opened.cleanup());

    test('put streams many chunks and answers size and lowercase sha256; get returns the bytes', async () => {
      const data = randomBytes(8 * 1024 * 1024 + 123);
      const key = `t/${fresh()}/big.bin`;
      const stored = await storage.put(key, chunked(data));
      assert.deepEqual(stored, { size: data.length, sha256: sha256(data) });
      assert.match(stored.sha256, /^[0-9a-f]{64}$/);
      assert.ok((await bytesOf(storage, key))!.equals(data));
      assert.equal((await storage.stat(key))!.size, data.length);
    });

    test('an empty body is a blob of 0 bytes', async () => {
      const key = `t/${fresh()}`;
      assert.equal((await storage.put(key, Readable.from([]))).size, 0);
      assert.equal((await bytesOf(storage, key))!.length, 0);
    });

    test('put over an existing key replaces it whole', async () => {
      const key = `t/${fresh()}`;
      await storage.put(key, Readable.from([Buffer.from('old bytes, longer than the new')]));
      await storage.put(key, Readable.from([Buffer.from('new')]));
      assert.equal((await bytesOf(storage, key))!.toString(), 'new');
    });

    test('over maxBytes: PAYLOAD_TOO_LARGE, the previous bytes intact, nothing else left', async () => {
      const prefix = `t/${fresh()}`;
      const key = `${prefix}/f`;
      await storage.put(key, Readable.from([Buffer.from('previous')]));
      await assertRefused(storage.put(key, chunked(randomBytes(300_000), 1000), { maxBytes: 100_000 }), 'PAYLOAD_TOO_LARGE');
      assert.equal((await bytesOf(storage, key))!.toString(), 'previous');
      const listed = [];
      for await (const blob of storage.list(prefix)) listed.push(blob.key);
      assert.deepEqual(listed, [key]);
      assert.equal((await storage.put(`${prefix}/exact`, Readable.from([Buffer.alloc(100)]), { maxBytes: 100 })).size, 100);
    });

    test('beforeCommit sees the new bytes before they replace; when it throws, nothing is replaced', async () => {
      const key = `t/${fresh()}`;
      await storage.put(key, Readable.from([Buffer.from('one')]));
      let seen: unknown;
      let visibleDuringHook: string | undefined;
      await storage.put(key, Readable.from([Buffer.from('two')]), {
        beforeCommit: async (written) => {
          seen = written;
          visibleDuringHook = (await bytesOf(storage, key))!.toString();
        },
      });
      assert.deepEqual(seen, { size: 3, sha256: sha256(Buffer.from('two')) });
      assert.equal(visibleDuringHook, 'one', 'the hook runs while the old bytes are still live');
      await assert.rejects(storage.put(key, Readable.from([Buffer.from('three')]), { beforeCommit: async () => { throw new Error('veto'); } }), /veto/);
      assert.equal((await bytesOf(storage, key))!.toString(), 'two');
    });

    test('a body that fails midway replaces nothing', async () => {
      const key = `t/${fresh()}`;
      await storage.put(key, Readable.from([Buffer.from('kept')]));
      const failing = Readable.from((async function* () {
        yield Buffer.from('partial');
        throw new Error('client went away');
      })());
      await assert.rejects(storage.put(key, failing), /client went away/);
      assert.equal((await bytesOf(storage, key))!.toString(), 'kept');
    });

    test('get and stat of a missing key: undefined', async () => {
      assert.equal(await storage.get(`t/${fresh()}`), undefined);
      assert.equal(await storage.stat(`t/${fresh()}`), undefined);
    });

    test('ranges are inclusive; a start at or past the end is RANGE_NOT_SATISFIABLE', async () => {
      const key = `t/${fresh()}`;
      const data = Buffer.from('0123456789');
      await storage.put(key, Readable.from([data]));
      assert.equal((await bytesOf(storage, key, { start: 2, end: 4 }))!.toString(), '234');
      assert.equal((await bytesOf(storage, key, { start: 9, end: 9 }))!.toString(), '9');
      await assertRefused(storage.get(key, { start: 10, end: 12 }), 'RANGE_NOT_SATISFIABLE');
      await assertRefused(storage.get(key, { start: 5, end: 2 }), 'RANGE_NOT_SATISFIABLE');
    });

    test('list(prefix) holds exactly the blobs under prefix/, not those of a longer sibling prefix', async () => {
      const base = `l${fresh()}`;
      for (const key of [`${base}/a`, `${base}/sub/b`, `${base}/sub/deeper/c`, `${base}x/not-mine`]) {
        await storage.put(key, Readable.from([Buffer.from(key)]));
      }
      const listed = [];
      for await (const blob of storage.list(base)) listed.push([blob.key, blob.size]);
      assert.deepEqual(listed.sort(), [[`${base}/a`, base.length + 2], [`${base}/sub/b`, base.length + 6], [`${base}/sub/deeper/c`, base.length + 13]].sort());
      const none = [];
      for await (const blob of storage.list(`nothing${fresh()}`)) none.push(blob);
      assert.deepEqual(none, []);
    });

    test('delete answers whether something went', async () => {
      const key = `t/${fresh()}/x`;
      await storage.put(key, Readable.from([Buffer.from('x')]));
      assert.equal(await storage.delete(key), true);
      assert.equal(await storage.get(key), undefined);
      assert.equal(await storage.delete(key), false);
    });

    test('link: the target holds the bytes and keeps them when the source is replaced or deleted', async () => {
      const source = `t/${fresh()}/live`;
      const target = `t/${fresh()}/kept`;
      await storage.put(source, Readable.from([Buffer.from('as linked')]));
      await storage.link(source, target);
      await storage.put(source, Readable.from([Buffer.from('replaced later')]));
      assert.equal((await bytesOf(storage, target))!.toString(), 'as linked');
      await storage.delete(source);
      assert.equal((await bytesOf(storage, target))!.toString(), 'as linked');
    });

    test('link onto an existing target fails and changes nothing; from a missing source fails', async () => {
      const source = `t/${fresh()}`;
      const target = `t/${fresh()}`;
      await storage.put(source, Readable.from([Buffer.from('source')]));
      await storage.put(target, Readable.from([Buffer.from('target')]));
      await assert.rejects(storage.link(source, target));
      assert.equal((await bytesOf(storage, target))!.toString(), 'target');
      await assertRefused(storage.link(`t/${fresh()}`, `t/${fresh()}`), 'NOT_FOUND');
    });

    test('copyReplace: replaces with the source bytes when they hash as expected, else INTEGRITY_FAILED and no change', async () => {
      const source = `t/${fresh()}`;
      const target = `t/${fresh()}/restored`;
      const data = randomBytes(200_000);
      await storage.put(source, Readable.from([data]));
      await storage.put(target, Readable.from([Buffer.from('current')]));
      await assertRefused(storage.copyReplace(source, target, { expectedSha256: sha256(Buffer.from('something else')) }), 'INTEGRITY_FAILED');
      assert.equal((await bytesOf(storage, target))!.toString(), 'current');
      let hookSaw: unknown;
      const copied = await storage.copyReplace(source, target, { expectedSha256: sha256(data).toUpperCase(), beforeCommit: async (w) => { hookSaw = w; } });
      assert.deepEqual(copied, { size: data.length, sha256: sha256(data) });
      assert.deepEqual(hookSaw, copied);
      assert.ok((await bytesOf(storage, target))!.equals(data));
      assert.ok((await bytesOf(storage, source))!.equals(data), 'the source is untouched');
      const fresh1 = `t/${fresh()}/new`;
      await storage.copyReplace(source, fresh1);
      assert.ok((await bytesOf(storage, fresh1))!.equals(data), 'a missing target is created');
      await assertRefused(storage.copyReplace(`t/${fresh()}`, target), 'NOT_FOUND');
    });

    test('removeLeftovers removes nothing a caller stored', async () => {
      const key = `t/${fresh()}/stays`;
      await storage.put(key, Readable.from([Buffer.from('stays')]));
      assert.equal(typeof (await storage.removeLeftovers()), 'number');
      assert.equal((await bytesOf(storage, key))!.toString(), 'stays');
    });

    test('every method refuses keys that are not safe segments with INVALID_PATH', async () => {
      const good = `t/${fresh()}`;
      await storage.put(good, Readable.from([Buffer.from('g')]));
      for (const bad of ['', '..', '../x', 't/../x', 'a//b', '/abs', 't/.hidden', 'a\\b', 'nul\u0000', 'trailing/', 't/x ', 'x'.repeat(256)]) {
        await assertRefused(storage.put(bad, Readable.from([Buffer.from('x')])), 'INVALID_PATH');
        await assertRefused(storage.get(bad), 'INVALID_PATH');
        await assertRefused(storage.stat(bad), 'INVALID_PATH');
        await assertRefused(storage.delete(bad), 'INVALID_PATH');
        await assertRefused(storage.link(good, bad), 'INVALID_PATH');
        await assertRefused(storage.link(bad, `t/${fresh()}`), 'INVALID_PATH');
        await assertRefused(storage.copyReplace(good, bad), 'INVALID_PATH');
        await assertRefused((async () => { for await (const _ of storage.list(bad)) break; })(), 'INVALID_PATH');
      }
    });
  });
}
