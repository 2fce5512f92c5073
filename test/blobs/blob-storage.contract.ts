import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { BlobInfo, BlobStorage } from '../../src/blobs/blob-storage.ts';
import { type ErrorCode, ErrorCodes, isAppError } from '../../src/errors/app-error.ts';

export interface OpenedStorage {
  storage: BlobStorage;
  cleanup(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Helpers, exported for the implementation-specific test files.

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A fresh body per call: a Readable can be consumed once, and a refused put may have started on it. */
export function bodyOf(...chunks: (string | Uint8Array)[]): Readable {
  return Readable.from(chunks.map((chunk) => Buffer.from(chunk)));
}

export async function readAll(stream: Readable | undefined): Promise<Buffer | undefined> {
  if (stream === undefined) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export async function textOf(storage: BlobStorage, key: string): Promise<string | undefined> {
  return (await readAll(await storage.get(key)))?.toString('utf8');
}

export async function listAll(storage: BlobStorage, prefix: string): Promise<BlobInfo[]> {
  const found: BlobInfo[] = [];
  for await (const info of storage.list(prefix)) found.push(info);
  return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export async function listedKeys(storage: BlobStorage, prefix: string): Promise<string[]> {
  return (await listAll(storage, prefix)).map((info) => info.key);
}

/** Rejects with exactly this AppError code, and the status that code is documented with. */
export async function assertAppError(
  action: Promise<unknown> | (() => Promise<unknown>),
  code: ErrorCode,
  message?: string,
): Promise<void> {
  await assert.rejects(
    action,
    (error: unknown) => {
      assert.ok(isAppError(error), `${message ?? ''}: expected AppError ${code}, got ${String(error).slice(0, 200)}`);
      assert.equal(error.code, code, message);
      assert.equal(error.status, ErrorCodes[code], message);
      return true;
    },
    message,
  );
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => (resolve = settle));
  return { promise, resolve };
}

/** Different bytes per chunk, so a chunk written twice, dropped or reordered changes the hash. */
function patternChunk(seed: string, index: number, size: number): Buffer {
  return Buffer.alloc(size, createHash('sha256').update(`${seed}:${index}`).digest());
}

export interface GeneratedBody {
  body: Readable;
  /** Chunks the storage has asked for so far. */
  readonly pulled: number;
  readonly size: number;
  readonly sha256: string;
}

/**
 * A body produced chunk by chunk on demand, never held whole in memory; a tiny highWaterMark
 * keeps the Readable from reading ahead, so `pulled` tells how far the storage really read.
 */
export function generatedBody(seed: string, count: number, chunkSize: number): GeneratedBody {
  const hash = createHash('sha256');
  for (let index = 0; index < count; index++) hash.update(patternChunk(seed, index, chunkSize));
  const sha256 = hash.digest('hex');
  let pulled = 0;
  const body = new Readable({
    highWaterMark: 1,
    read() {
      if (pulled === count) this.push(null);
      else this.push(patternChunk(seed, pulled++, chunkSize));
    },
  });
  return {
    body,
    get pulled() {
      return pulled;
    },
    size: count * chunkSize,
    sha256,
  };
}

/**
 * A body that hands over `first`, then waits for `release` before `second`: a put caught in
 * the middle. `consumed` settles once the storage has taken `first` and asked for more.
 */
function pausedBody(first: Buffer, second: Buffer): { body: Readable; consumed: Promise<void>; release(): void } {
  const consumed = deferred();
  const released = deferred();
  let step = 0;
  const body = new Readable({
    highWaterMark: 1,
    read() {
      step++;
      if (step === 1) this.push(first);
      else if (step === 2) {
        consumed.resolve();
        void released.promise.then(() => {
          this.push(second);
          this.push(null);
        });
      }
    },
  });
  return { body, consumed: consumed.promise, release: () => released.resolve() };
}

function failingBody(afterChunks: (string | Uint8Array)[], error: Error): Readable {
  return Readable.from(
    (async function* () {
      for (const chunk of afterChunks) yield Buffer.from(chunk);
      throw error;
    })(),
  );
}

/** Keys a caller must never get through, each placed where it would otherwise be valid. */
export function invalidKeys(prefix: string): [label: string, key: string][] {
  return [
    ['empty', ''],
    ['dot-dot', '..'],
    ['dot', '.'],
    ['dot-dot inside', `${prefix}/../${prefix}-escaped`],
    ['dot-dot leading', `../${prefix}`],
    ['dot-dot trailing', `${prefix}/a/..`],
    ['dot inside', `${prefix}/./a`],
    ['hidden segment', `${prefix}/.hidden`],
    ['hidden first segment', '.hidden'],
    ['temp-file name', `${prefix}/.wa-tmp-0123456789abcdef01234567`],
    ['absolute path', `/${prefix}/a`],
    ['absolute system path', '/etc/passwd'],
    ['backslash', `${prefix}\\a`],
    ['backslash traversal', `..\\..\\${prefix}`],
    ['NUL', `${prefix}/a\0b`],
    ['NUL truncating an extension', `${prefix}/a.txt\0.png`],
    ['newline', `${prefix}/a\nb`],
    ['DEL', `${prefix}/a\u007fb`],
    ['C1 control', `${prefix}/a\u009bb`],
    ['lone surrogate', `${prefix}/a\ud800b`],
    ['trailing slash', `${prefix}/`],
    ['double slash', `${prefix}//a`],
    ['only whitespace segment', `${prefix}/   `],
    ['trailing dot', `${prefix}/a.`],
    ['trailing space', `${prefix}/a `],
    ['segment of 256 ASCII bytes', `${prefix}/${'x'.repeat(256)}`],
    ['segment over 255 UTF-8 bytes', `${prefix}/${'é'.repeat(128)}`],
    // Over Linux PATH_MAX (4096) and S3's 1024-byte key limit: no backend can hold it.
    ['key longer than any backend allows', `${prefix}/${Array.from({ length: 20 }, () => 'k'.repeat(250)).join('/')}`],
  ];
}

// ---------------------------------------------------------------------------------------------

/**
 * The behaviour callers rely on from every BlobStorage. Written against the interface only, so
 * that each implementation (disk now, S3 later) runs the same suite; each test works under its
 * own fresh prefix, so tests share one storage without sharing blobs.
 */
/**
 * What the backend under test can hold. The test double of S3 (s3rver) keeps each object in a file
 * named after its key plus a 21-byte suffix, so it cannot hold a 255-byte segment; real S3 can.
 */
export interface ContractLimits {
  longestSegmentBytes: number;
}

export function describeBlobStorageContract(
  name: string,
  open: () => Promise<OpenedStorage>,
  limits: ContractLimits = { longestSegmentBytes: 255 },
): void {
  describe(`blob storage contract (${name})`, () => {
    let opened: OpenedStorage | undefined;
    let storage: BlobStorage;
    let counter = 0;
    const fresh = (): string => `c${++counter}-${randomBytes(4).toString('hex')}`;

    before(async () => {
      opened = await open();
      storage = opened.storage;
    });
    after(async () => {
      await opened?.cleanup();
    });

    test('reports a known kind', () => {
      assert.ok(storage.kind === 'disk' || storage.kind === 's3', storage.kind);
    });

    describe('put and get', () => {
      test('get returns the bytes put, and put reports their size and lowercase hex sha256', async () => {
        const key = `${fresh()}/folder/file.bin`;
        const chunks = [Buffer.from('hello, '), Buffer.alloc(0), randomBytes(1000), Buffer.from([0, 255, 0x0a, 0x0d])];
        const whole = Buffer.concat(chunks);
        const stored = await storage.put(key, bodyOf(...chunks));
        assert.deepEqual(stored, { size: whole.length, sha256: sha256Hex(whole) });
        assert.match(stored.sha256, /^[0-9a-f]{64}$/);
        assert.deepEqual(await readAll(await storage.get(key)), whole);
      });

      test('a single-segment key is a blob like any other', async () => {
        const key = fresh();
        await storage.put(key, bodyOf('top level'));
        assert.equal(await textOf(storage, key), 'top level');
        assert.equal((await storage.stat(key))?.size, 9);
        assert.equal(await storage.delete(key), true);
      });

      test('an empty body is an empty blob, not a missing one', async () => {
        const key = `${fresh()}/empty`;
        assert.deepEqual(await storage.put(key, bodyOf()), { size: 0, sha256: sha256Hex('') });
        assert.deepEqual(await readAll(await storage.get(key)), Buffer.alloc(0));
        assert.equal((await storage.stat(key))?.size, 0);
      });

      test('keys are taken literally: names that look encoded or unusual are distinct blobs', async () => {
        const prefix = fresh();
        const longest = `${'é'.repeat(Math.floor((limits.longestSegmentBytes - 1) / 2))}a`;
        const names = ['%2e%2e', '%252e%252e', 'a%2fb', '%00', 'a..b', '…', 'résumé.pdf', '日本語.txt', '😀', longest];
        for (const name of names) await storage.put(`${prefix}/${name}`, bodyOf(`content of ${name}`));
        for (const name of names) assert.equal(await textOf(storage, `${prefix}/${name}`), `content of ${name}`, name);
        assert.deepEqual(await listedKeys(storage, prefix), names.map((name) => `${prefix}/${name}`).sort());
      });

      test('copy takes such names literally too, URL-reserved characters included', async () => {
        const prefix = fresh();
        const names = ['a #1', 'a+b c', 'q?x=1&y=2', '100%', '%41', 'a;b,c:d@e$f', "it's (1) [2] {3} !*", '~`^|<>', 'résumé #2 + 日本.pdf'];
        for (const name of names) {
          await storage.put(`${prefix}/live/${name}`, bodyOf(`content of ${name}`));
          await storage.copy(`${prefix}/live/${name}`, `${prefix}/restored/${name}`, { expectedSha256: sha256Hex(`content of ${name}`) });
        }
        for (const name of names) assert.equal(await textOf(storage, `${prefix}/restored/${name}`), `content of ${name}`, name);
        assert.equal((await listedKeys(storage, prefix)).length, names.length * 2);
      });

      test('streams 8 MiB from a body of many chunks read on demand, and get streams them back', async () => {
        const key = `${fresh()}/large.bin`;
        const generated = generatedBody(key, 128, 64 * 1024);
        const stored = await storage.put(key, generated.body);
        assert.equal(generated.pulled, 128, 'the whole body was read');
        assert.deepEqual(stored, { size: 8 * 1024 * 1024, sha256: generated.sha256 });
        const stream = await storage.get(key);
        assert.ok(stream);
        const hash = createHash('sha256');
        let size = 0;
        let chunks = 0;
        for await (const chunk of stream) {
          hash.update(chunk as Buffer);
          size += (chunk as Buffer).length;
          chunks++;
        }
        assert.equal(size, generated.size);
        assert.equal(hash.digest('hex'), generated.sha256);
        assert.ok(chunks > 1, 'get hands the blob over in pieces, not as one buffer');
        assert.equal((await storage.stat(key))?.size, generated.size);
      });

      test('put over an existing key replaces it; while the new bytes are still arriving, readers get the old ones whole', async () => {
        const key = `${fresh()}/doc.txt`;
        const old = randomBytes(50_000);
        await storage.put(key, bodyOf(old));
        const first = randomBytes(40_000);
        const second = randomBytes(40_000);
        const paused = pausedBody(first, second);
        const replacing = storage.put(key, paused.body);
        await paused.consumed;
        assert.deepEqual(await readAll(await storage.get(key)), old, 'mid-put, get still returns the old bytes');
        assert.equal((await storage.stat(key))?.size, old.length);
        assert.deepEqual(await listedKeys(storage, key.split('/')[0]!), [key], 'the write in progress is not a blob');
        paused.release();
        const fresher = Buffer.concat([first, second]);
        assert.deepEqual(await replacing, { size: fresher.length, sha256: sha256Hex(fresher) });
        assert.deepEqual(await readAll(await storage.get(key)), fresher);
        assert.equal((await storage.stat(key))?.size, fresher.length);
      });

      test('concurrent puts to one key leave exactly one of the bodies, whole', async () => {
        const key = `${fresh()}/contended`;
        const bodies = Array.from({ length: 8 }, (_, index) => generatedBody(`${key}:${index}`, 8, 32 * 1024 + index));
        const results = await Promise.all(bodies.map((generated) => storage.put(key, generated.body)));
        for (const [index, result] of results.entries()) assert.equal(result.sha256, bodies[index]!.sha256);
        const final = await readAll(await storage.get(key));
        assert.ok(final);
        const winner = bodies.find((generated) => generated.sha256 === sha256Hex(final));
        assert.ok(winner, 'the blob is one of the bodies, not a mix of several');
        assert.equal(final.length, winner.size);
        assert.equal((await storage.stat(key))?.size, winner.size);
      });

      test('a body that fails part-way replaces nothing and leaves nothing behind', async () => {
        const prefix = fresh();
        const key = `${prefix}/doc`;
        await storage.put(key, bodyOf('the old bytes'));
        const failure = new Error('the client went away');
        await assert.rejects(
          storage.put(key, failingBody([randomBytes(20_000), randomBytes(20_000)], failure)),
          (error) => error === failure,
        );
        assert.equal(await textOf(storage, key), 'the old bytes');
        await assert.rejects(storage.put(`${prefix}/new`, failingBody(['partial'], failure)), (error) => error === failure);
        assert.equal(await storage.get(`${prefix}/new`), undefined);
        assert.deepEqual(await listedKeys(storage, prefix), [key]);
        assert.equal(await storage.removeLeftovers(), 0, 'no temporary data outlives the failed puts');
      });
    });

    describe('put with maxBytes', () => {
      test('a body of exactly maxBytes is accepted', async () => {
        const key = `${fresh()}/exact`;
        const bytes = randomBytes(4096);
        assert.deepEqual(await storage.put(key, bodyOf(bytes.subarray(0, 1000), bytes.subarray(1000)), { maxBytes: 4096 }), {
          size: 4096,
          sha256: sha256Hex(bytes),
        });
        assert.deepEqual(await storage.put(`${key}-empty`, bodyOf(), { maxBytes: 0 }), { size: 0, sha256: sha256Hex('') });
      });

      test('one byte more is PAYLOAD_TOO_LARGE: the previous bytes stay, the body is not read to its end, nothing is left behind', async () => {
        const prefix = fresh();
        const key = `${prefix}/doc`;
        const previous = randomBytes(3000);
        await storage.put(key, bodyOf(previous));
        const generated = generatedBody(key, 64, 16 * 1024);
        await assertAppError(storage.put(key, generated.body, { maxBytes: 3 * 16 * 1024 + 1 }), 'PAYLOAD_TOO_LARGE');
        assert.ok(generated.pulled < 64, `the storage stopped reading the body (read ${generated.pulled} of 64 chunks)`);
        assert.deepEqual(await readAll(await storage.get(key)), previous);
        assert.equal((await storage.stat(key))?.size, previous.length);

        await assertAppError(storage.put(`${prefix}/new`, bodyOf('x'.repeat(11)), { maxBytes: 10 }), 'PAYLOAD_TOO_LARGE');
        assert.equal(await storage.stat(`${prefix}/new`), undefined);
        assert.deepEqual(await listedKeys(storage, prefix), [key]);
        assert.equal(await storage.removeLeftovers(), 0);
      });
    });

    describe('get', () => {
      test('a missing key, or a key that is only a prefix of others, is undefined', async () => {
        const prefix = fresh();
        assert.equal(await storage.get(`${prefix}/missing`), undefined);
        await storage.put(`${prefix}/folder/file`, bodyOf('x'));
        assert.equal(await storage.get(`${prefix}/folder`), undefined);
        assert.equal(await storage.get(prefix), undefined);
        assert.equal(await storage.get(`${prefix}/folder/file/below`), undefined);
        assert.equal(await storage.get(`${prefix}/folder`, { start: 0, end: 0 }), undefined);
      });

      test('a range is start..end inclusive; an end past the blob stops at its last byte', async () => {
        const key = `${fresh()}/hundred`;
        const bytes = Buffer.from(Array.from({ length: 100 }, (_, index) => index));
        await storage.put(key, bodyOf(bytes));
        const cases: [number, number, Buffer][] = [
          [0, 0, bytes.subarray(0, 1)],
          [0, 99, bytes],
          [10, 19, bytes.subarray(10, 20)],
          [99, 99, bytes.subarray(99)],
          [90, 1000, bytes.subarray(90)],
          [0, Number.MAX_SAFE_INTEGER, bytes],
        ];
        for (const [start, end, expected] of cases) {
          assert.deepEqual(await readAll(await storage.get(key, { start, end })), expected, `${start}-${end}`);
        }
      });

      test('a range starting at or beyond the end, or malformed, is RANGE_NOT_SATISFIABLE', async () => {
        const prefix = fresh();
        await storage.put(`${prefix}/ten`, bodyOf('0123456789'));
        await storage.put(`${prefix}/empty`, bodyOf());
        const refused: [string, number, number][] = [
          ['ten', 10, 10],
          ['ten', 10, 20],
          ['ten', 1000, 2000],
          ['ten', 5, 4],
          ['ten', -1, 3],
          ['ten', 1.5, 3],
          ['ten', Number.NaN, 3],
          ['ten', 0, Number.POSITIVE_INFINITY],
          ['empty', 0, 0],
        ];
        for (const [name, start, end] of refused) {
          await assertAppError(storage.get(`${prefix}/${name}`, { start, end }), 'RANGE_NOT_SATISFIABLE', `${name} ${start}-${end}`);
        }
        assert.equal(await textOf(storage, `${prefix}/ten`), '0123456789');
      });

      test('with the size the whole blob must have: the bytes when it has it, INTEGRITY_FAILED before any byte when not, ranges too', async () => {
        const key = `${fresh()}/sized`;
        await storage.put(key, bodyOf('0123456789'));
        assert.equal((await readAll(await storage.get(key, undefined, { size: 10 })))?.toString(), '0123456789');
        assert.equal((await readAll(await storage.get(key, { start: 2, end: 4 }, { size: 10 })))?.toString(), '234');
        await assertAppError(storage.get(key, undefined, { size: 9 }), 'INTEGRITY_FAILED', 'shorter than declared');
        await assertAppError(storage.get(key, undefined, { size: 11 }), 'INTEGRITY_FAILED', 'longer than declared');
        await assertAppError(storage.get(key, { start: 0, end: 3 }, { size: 12 }), 'INTEGRITY_FAILED', 'a range of a blob of another size');
        assert.equal(await storage.get(`${key}-missing`, undefined, { size: 10 }), undefined);
      });
    });

    describe('stat', () => {
      test('reports key, size and modification time in epoch milliseconds; undefined when missing', async () => {
        const prefix = fresh();
        const key = `${prefix}/a/b.txt`;
        const earliest = Date.now();
        await storage.put(key, bodyOf('12345'));
        const latest = Date.now();
        const info = await storage.stat(key);
        assert.ok(info);
        assert.equal(info.key, key);
        assert.equal(info.size, 5);
        assert.ok(Number.isInteger(info.modifiedAt));
        // Generous: only catches the wrong unit (seconds, microseconds) or a missing value.
        const slack = 15 * 60 * 1000;
        assert.ok(
          info.modifiedAt >= earliest - slack && info.modifiedAt <= latest + slack,
          `modifiedAt ${info.modifiedAt} is not around ${earliest}`,
        );
        assert.equal(await storage.stat(`${prefix}/a/missing`), undefined);
        assert.equal(await storage.stat(`${prefix}/a`), undefined, 'a prefix is not a blob');

        await storage.put(key, bodyOf('1234567'));
        assert.equal((await storage.stat(key))?.size, 7);
      });
    });

    describe('list', () => {
      test('yields exactly the blobs under prefix + "/", at any depth, with full keys and sizes', async () => {
        const root = fresh();
        const blobs: Record<string, string> = {
          [`${root}/a/one`]: '1',
          [`${root}/a/two`]: '22',
          [`${root}/a/deep/er/three`]: '333',
          [`${root}/ab/sibling`]: 'not under a',
          [`${root}/a-b/sibling`]: 'not under a',
          [`${root}/a.b/sibling`]: 'not under a',
          [`${root}/abc`]: 'a blob whose key merely starts with a',
          [`${root}/top`]: 'above a',
        };
        for (const [key, text] of Object.entries(blobs)) await storage.put(key, bodyOf(text));

        const underA = await listAll(storage, `${root}/a`);
        assert.deepEqual(
          underA.map(({ key, size }) => ({ key, size })),
          [`${root}/a/deep/er/three`, `${root}/a/one`, `${root}/a/two`].map((key) => ({ key, size: blobs[key]!.length })),
        );
        for (const info of underA) assert.deepEqual(info, await storage.stat(info.key));
        assert.deepEqual(await listedKeys(storage, `${root}/a/deep`), [`${root}/a/deep/er/three`]);
        assert.deepEqual(await listedKeys(storage, `${root}/ab`), [`${root}/ab/sibling`]);
        assert.deepEqual(await listedKeys(storage, root), Object.keys(blobs).sort());
      });

      test('an unknown prefix, or the key of a blob itself, lists nothing', async () => {
        const prefix = fresh();
        await storage.put(`${prefix}/file`, bodyOf('x'));
        assert.deepEqual(await listedKeys(storage, `${prefix}-missing`), []);
        assert.deepEqual(await listedKeys(storage, `${prefix}/missing/deeper`), []);
        assert.deepEqual(await listedKeys(storage, `${prefix}/file`), []);
      });

      test('reflects deletes and replacements', async () => {
        const prefix = fresh();
        await storage.put(`${prefix}/x`, bodyOf('1'));
        await storage.put(`${prefix}/y`, bodyOf('1'));
        await storage.delete(`${prefix}/x`);
        await storage.put(`${prefix}/y`, bodyOf('123'));
        assert.deepEqual(
          (await listAll(storage, prefix)).map(({ key, size }) => ({ key, size })),
          [{ key: `${prefix}/y`, size: 3 }],
        );
      });
    });

    describe('delete', () => {
      test('true when a blob was deleted, false when there was none; siblings stay', async () => {
        const prefix = fresh();
        const key = `${prefix}/dir/file`;
        await storage.put(key, bodyOf('bye'));
        await storage.put(`${prefix}/dir/sibling`, bodyOf('stay'));
        assert.equal(await storage.delete(key), true);
        assert.equal(await storage.get(key), undefined);
        assert.equal(await storage.stat(key), undefined);
        assert.equal(await storage.delete(key), false);
        assert.equal(await storage.delete(`${prefix}/never-was`), false);
        assert.equal(await textOf(storage, `${prefix}/dir/sibling`), 'stay');
        assert.deepEqual(await listedKeys(storage, prefix), [`${prefix}/dir/sibling`]);
      });

      test('a prefix is not a blob: deleting it is false and removes nothing', async () => {
        const prefix = fresh();
        await storage.put(`${prefix}/dir/file`, bodyOf('stay'));
        assert.equal(await storage.delete(`${prefix}/dir`), false);
        assert.equal(await storage.delete(prefix), false);
        assert.equal(await textOf(storage, `${prefix}/dir/file`), 'stay');
      });

      test('the key can be used again after its last blob in a folder went away', async () => {
        const prefix = fresh();
        const key = `${prefix}/a/b/c/file`;
        await storage.put(key, bodyOf('1'));
        assert.equal(await storage.delete(key), true);
        await storage.put(key, bodyOf('2'));
        assert.equal(await textOf(storage, key), '2');
        await storage.put(`${prefix}/a/b/c/other`, bodyOf('3'));
        assert.deepEqual(await listedKeys(storage, prefix), [`${prefix}/a/b/c/file`, `${prefix}/a/b/c/other`]);
      });
    });

    describe('copy', () => {
      test('the new blob holds the verified bytes of the source, which stays as it was; the two stay independent', async () => {
        const prefix = fresh();
        const version = `${prefix}/versions/v1`;
        const restored = `${prefix}/objects/deep/r1`;
        const generated = generatedBody(version, 16, 64 * 1024);
        await storage.put(version, generated.body);
        const stored = await storage.copy(version, restored, { expectedSha256: generated.sha256 });
        assert.deepEqual(stored, { size: generated.size, sha256: generated.sha256 });
        assert.equal(sha256Hex((await readAll(await storage.get(restored)))!), generated.sha256);
        assert.equal((await storage.stat(restored))?.size, generated.size);
        assert.equal(sha256Hex((await readAll(await storage.get(version)))!), generated.sha256);

        await storage.put(version, bodyOf('version changed'));
        assert.equal(sha256Hex((await readAll(await storage.get(restored)))!), generated.sha256, 'the copy does not follow its source');
        assert.equal(await storage.delete(version), true);
        assert.equal(sha256Hex((await readAll(await storage.get(restored)))!), generated.sha256, 'the copy survives its source');
      });

      test('a digest recorded in upper case still verifies (hex is case-insensitive)', async () => {
        const prefix = fresh();
        await storage.put(`${prefix}/src`, bodyOf('verified'));
        assert.deepEqual(await storage.copy(`${prefix}/src`, `${prefix}/dst`, { expectedSha256: sha256Hex('verified').toUpperCase() }), {
          size: 8,
          sha256: sha256Hex('verified'),
        });
        assert.equal(await textOf(storage, `${prefix}/dst`), 'verified');
      });

      test('from a source with other bytes than expected it is INTEGRITY_FAILED and creates nothing', async () => {
        const prefix = fresh();
        await storage.put(`${prefix}/src`, bodyOf('rotten bytes'));
        await assertAppError(
          storage.copy(`${prefix}/src`, `${prefix}/dst`, { expectedSha256: sha256Hex('what the catalog recorded') }),
          'INTEGRITY_FAILED',
        );
        assert.equal(await storage.stat(`${prefix}/dst`), undefined);
        assert.equal(await textOf(storage, `${prefix}/src`), 'rotten bytes');
        assert.deepEqual(await listedKeys(storage, prefix), [`${prefix}/src`]);
        assert.equal(await storage.removeLeftovers(), 0);
      });

      test('from a missing source (or a prefix) it is NOT_FOUND and creates nothing', async () => {
        const prefix = fresh();
        const expectedSha256 = sha256Hex('x');
        await assertAppError(storage.copy(`${prefix}/missing`, `${prefix}/dst`, { expectedSha256 }), 'NOT_FOUND');
        await storage.put(`${prefix}/dir/file`, bodyOf('x'));
        await assertAppError(storage.copy(`${prefix}/dir`, `${prefix}/dst`, { expectedSha256 }), 'NOT_FOUND');
        assert.equal(await storage.stat(`${prefix}/dst`), undefined);
        assert.deepEqual(await listedKeys(storage, prefix), [`${prefix}/dir/file`]);
      });
    });

    describe('ping', () => {
      test('resolves while the storage can be reached, and changes nothing', async () => {
        const prefix = fresh();
        await storage.put(`${prefix}/kept`, bodyOf('kept'));
        await storage.ping();
        await storage.ping();
        assert.deepEqual(await listedKeys(storage, prefix), [`${prefix}/kept`]);
      });
    });

    describe('removeLeftovers', () => {
      test('with nothing in flight it removes nothing a caller stored, and says how many it removed', async () => {
        const prefix = fresh();
        const stored: Record<string, string> = { [`${prefix}/a`]: 'a', [`${prefix}/b/c`]: 'bc', [`${prefix}/b/d/e`]: 'bde' };
        for (const [key, text] of Object.entries(stored)) await storage.put(key, bodyOf(text));
        await storage.copy(`${prefix}/a`, `${prefix}/linked`, { expectedSha256: sha256Hex('a') });
        const removed = await storage.removeLeftovers();
        assert.ok(Number.isInteger(removed) && removed >= 0, `a count, got ${removed}`);
        assert.equal(await storage.removeLeftovers(), 0, 'a second run finds nothing');
        for (const [key, text] of Object.entries(stored)) assert.equal(await textOf(storage, key), text, key);
        assert.equal(await textOf(storage, `${prefix}/linked`), 'a');
        assert.deepEqual(await listedKeys(storage, prefix), [...Object.keys(stored), `${prefix}/linked`].sort());
      });
    });

    describe('invalid keys', () => {
      test('every method refuses them with INVALID_PATH and changes nothing', async () => {
        const prefix = fresh();
        const good = `${prefix}/good`;
        await storage.put(good, bodyOf('good bytes'));
        for (const [label, bad] of invalidKeys(prefix)) {
          const says = (method: string) => `${method} of ${label} ${JSON.stringify(bad.slice(0, 60))}`;
          await assertAppError(storage.put(bad, bodyOf('evil')), 'INVALID_PATH', says('put'));
          await assertAppError(storage.get(bad), 'INVALID_PATH', says('get'));
          await assertAppError(storage.get(bad, { start: 0, end: 0 }), 'INVALID_PATH', says('ranged get'));
          await assertAppError(storage.stat(bad), 'INVALID_PATH', says('stat'));
          await assertAppError(listAll(storage, bad), 'INVALID_PATH', says('list'));
          await assertAppError(storage.delete(bad), 'INVALID_PATH', says('delete'));
          const expectedSha256 = sha256Hex('good bytes');
          await assertAppError(storage.copy(bad, `${prefix}/copied`, { expectedSha256 }), 'INVALID_PATH', says('copy from'));
          await assertAppError(storage.copy(good, bad, { expectedSha256 }), 'INVALID_PATH', says('copy to'));
        }
        assert.equal(await textOf(storage, good), 'good bytes');
        assert.deepEqual(await listedKeys(storage, prefix), [good]);
        assert.equal(await storage.removeLeftovers(), 0);
      });
    });
  });
}
