import assert from 'node:assert/strict';
import crypto, { type BinaryLike, type CipherKey, createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { DirectoryTarget } from '../../src/offsite/target/directory-target.ts';
import { OffsiteObjectMissing, type OffsiteTarget, type TargetObject } from '../../src/offsite/target/offsite-target.ts';
import { openOffsiteTarget } from '../../src/offsite/target/open-offsite-target.ts';
import { S3Target, type S3TargetConfig } from '../../src/offsite/target/s3-target.ts';
import { type S3Request, startTestS3, type TestS3 } from '../helpers/s3-server.ts';

// ---------------------------------------------------------------------------------------------
// Helpers

const MiB = 1024 ** 2;
/** Bigger than two 8 MiB parts: the S3 target sends it as a multipart upload. */
const BIG = randomBytes(20 * MiB);

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A stream of bytes in 64 KiB chunks, as the shipper's encryptor hands them on. */
async function* streamOf(bytes: Buffer, chunk = 64 * 1024): AsyncIterable<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += chunk) yield bytes.subarray(offset, offset + chunk);
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function listAll(target: OffsiteTarget, prefix: string): Promise<TargetObject[]> {
  const found: TargetObject[] = [];
  for await (const object of target.list(prefix)) found.push(object);
  return found;
}

async function names(target: OffsiteTarget, prefix: string): Promise<string[]> {
  return (await listAll(target, prefix)).map((object) => object.name);
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

const REFUSED_NAMES = ['', '../escape', 'a/../../b', '..', 'a/./b', '/absolute', 'a//b', 'a/', 'a\\b', '.tmp-x', 'a/.hidden', 'a\u0000b'];

interface OpenedTarget {
  target: OffsiteTarget;
  /** How many list requests the store has seen (S3: pages); undefined where there are no requests. */
  listRequests?: () => number;
  cleanup(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// The shared suite: what every kind of target promises.

function describeTarget(kind: string, open: () => Promise<OpenedTarget>): void {
  describe(`offsite target: ${kind}`, () => {
    let opened: OpenedTarget;
    let target: OffsiteTarget;
    before(async () => {
      opened = await open();
      target = opened.target;
    });
    after(() => opened.cleanup());

    test('a Buffer is written once and read back whole; head tells its size', async () => {
      const bytes = Buffer.from('age-encryption.org/v1 …');
      assert.deepEqual(await target.putNew('blobs/ab12.age', bytes), { written: true });
      assert.deepEqual(await readAll(await target.get('blobs/ab12.age')), bytes);
      assert.deepEqual(await target.head('blobs/ab12.age'), { name: 'blobs/ab12.age', size: bytes.length });
      assert.deepEqual(await target.putNew('blobs/empty.age', Buffer.alloc(0)), { written: true });
      assert.deepEqual(await target.head('blobs/empty.age'), { name: 'blobs/empty.age', size: 0 });
      assert.equal((await readAll(await target.get('blobs/empty.age'))).length, 0);
    });

    test('a 20 MB stream goes up and comes back byte for byte, with or without its size', async () => {
      assert.deepEqual(await target.putNew('blobs/big-sized.age', streamOf(BIG), { size: BIG.length }), { written: true });
      assert.deepEqual(await target.putNew('blobs/big-unsized.age', streamOf(BIG)), { written: true });
      for (const name of ['blobs/big-sized.age', 'blobs/big-unsized.age']) {
        assert.equal(sha256(await readAll(await target.get(name))), sha256(BIG), name);
        assert.equal((await target.head(name))?.size, BIG.length, name);
      }
    });

    test('putNew on an existing name answers written:false, reads nothing of the new body, and keeps the first bytes', async () => {
      await target.putNew('generations/g1/manifest.age', Buffer.from('first'));
      let read = false;
      const second = (async function* () {
        read = true;
        yield Buffer.from('second');
      })();
      assert.deepEqual(await target.putNew('generations/g1/manifest.age', second), { written: false });
      assert.equal(read, false);
      assert.deepEqual(await target.putNew('generations/g1/manifest.age', Buffer.from('third')), { written: false });
      assert.equal((await readAll(await target.get('generations/g1/manifest.age'))).toString(), 'first');
    });

    test('a body of another length than announced is refused, and nothing is written', async () => {
      await assert.rejects(target.putNew('sized/short.age', Buffer.from('12345'), { size: 10 }), /shorter than the announced 10/);
      await assert.rejects(target.putNew('sized/long.age', streamOf(Buffer.alloc(100), 10), { size: 50 }), /longer than the announced 50/);
      // Found out after parts went up: the multipart upload is dropped, and its failure is not what is reported.
      await assert.rejects(
        target.putNew('sized/big-short.age', streamOf(BIG.subarray(0, 9 * MiB)), { size: BIG.length }),
        new RegExp(
          `^Error: ${escapeRegExp(target.description)}: writing "sized/big-short.age" failed.*shorter than the announced ${BIG.length}$`,
        ),
      );
      assert.equal(await target.head('sized/big-short.age'), undefined);
      assert.equal(await target.head('sized/short.age'), undefined);
      assert.equal(await target.head('sized/long.age'), undefined);
      assert.deepEqual(await names(target, 'sized/'), []);
    });

    test('list gives every object under a prefix, sorted by name, across pages, and nothing else', async () => {
      const segments = Array.from({ length: 23 }, (_, index) => `lst/g7/segments/${String(index).padStart(12, '0')}.age`);
      // Written out of order: the order listed is the store's, not the writes'.
      const shuffled = [...segments].sort(() => Math.random() - 0.5);
      for (const name of shuffled) await target.putNew(name, Buffer.from(name));
      await target.putNew('lst/g7/manifest.age', Buffer.from('m'));
      await target.putNew('lst/g70/manifest.age', Buffer.from('other generation'));
      await target.putNew('lst/blobs/00ff.age', Buffer.from('blob'));
      const before = opened.listRequests?.();
      const listed = await listAll(target, 'lst/g7/segments/');
      assert.deepEqual(
        listed.map((object) => object.name),
        segments,
      );
      assert.ok(listed.every((object) => object.size === Buffer.byteLength(object.name)));
      if (before !== undefined) assert.ok(opened.listRequests!() - before >= 5, 'the listing took several pages');
      assert.deepEqual(await names(target, 'lst/g7/'), [...segments, 'lst/g7/manifest.age'].sort(byteOrder));
      // A partial last segment: g7 and g70 both start so.
      assert.deepEqual(await names(target, 'lst/g7'), [...segments, 'lst/g7/manifest.age', 'lst/g70/manifest.age'].sort(byteOrder));
      assert.deepEqual(await names(target, 'lst/blobs/'), ['lst/blobs/00ff.age']);
      assert.deepEqual(await names(target, 'lst/nothing/'), []);
      assert.deepEqual(await names(target, 'nothing-at-all'), []);
      const everything = await names(target, '');
      assert.deepEqual(everything, [...everything].sort(byteOrder));
      assert.ok(segments.every((name) => everything.includes(name)));
    });

    test('head and get of an absent name: undefined, and OffsiteObjectMissing; a folder is no object', async () => {
      assert.equal(await target.head('generations/none/manifest.age'), undefined);
      await assert.rejects(target.get('generations/none/manifest.age'), (error: unknown) => {
        assert.ok(error instanceof OffsiteObjectMissing);
        assert.equal(error.objectName, 'generations/none/manifest.age');
        assert.match(error.message, new RegExp(`^${escapeRegExp(target.description)}: no object named`));
        return true;
      });
      await target.putNew('folder/inside/x.age', Buffer.from('x'));
      assert.equal(await target.head('folder/inside'), undefined);
      await assert.rejects(target.get('folder/inside'), OffsiteObjectMissing);
      // Below a name that is an object, not a folder.
      assert.equal(await target.head('folder/inside/x.age/y'), undefined);
      await assert.rejects(target.get('folder/inside/x.age/y'), OffsiteObjectMissing);
    });

    test('remove takes an object away (absent is fine), and the name can be written again', async () => {
      await target.putNew('rm/g1/segments/000000000001.age', Buffer.from('old'));
      await target.putNew('rm/g2/segments/000000000001.age', Buffer.from('kept'));
      await target.remove('rm/g1/segments/000000000001.age');
      await target.remove('rm/g1/segments/000000000001.age');
      await target.remove('rm/never/was.age');
      assert.equal(await target.head('rm/g1/segments/000000000001.age'), undefined);
      await assert.rejects(target.get('rm/g1/segments/000000000001.age'), OffsiteObjectMissing);
      assert.deepEqual(await names(target, 'rm/'), ['rm/g2/segments/000000000001.age']);
      assert.deepEqual(await target.putNew('rm/g1/segments/000000000001.age', Buffer.from('new')), { written: true });
      assert.equal((await readAll(await target.get('rm/g1/segments/000000000001.age'))).toString(), 'new');
    });

    test('names that could leave the target, or hide as temporary files, are refused by every operation', async () => {
      for (const name of REFUSED_NAMES) {
        const message = /offsite object name .* is refused/;
        await assert.rejects(target.putNew(name, Buffer.from('x')), message, JSON.stringify(name));
        await assert.rejects(target.get(name), message, JSON.stringify(name));
        await assert.rejects(target.head(name), message, JSON.stringify(name));
        await assert.rejects(target.remove(name), message, JSON.stringify(name));
      }
      for (const prefix of ['../', 'a/../', '/abs', 'a//']) {
        await assert.rejects(listAll(target, prefix), /offsite object name .* is refused/, prefix);
      }
    });

    test('the description names the target and no credential', () => {
      assert.match(target.description, /^(file:\/\/\/|s3:\/\/)/);
      assert.doesNotMatch(target.description, /S3RVER|secret/i);
    });
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// ---------------------------------------------------------------------------------------------
// The directory target

describeTarget('directory (file:///…)', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'offsite-dir-'));
  return { target: await openOffsiteTarget({ kind: 'file', path: root }), cleanup: () => rm(root, { recursive: true, force: true }) };
});

describe('offsite target: directory specifics', () => {
  let root: string;
  let target: DirectoryTarget;
  before(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'offsite-dir-'));
    target = new DirectoryTarget(root);
  });
  after(() => rm(root, { recursive: true, force: true }));

  test('a temporary file a cut write left behind goes once old enough; a write under way and the objects stay', async () => {
    await target.putNew('left/kept.age', Buffer.from('kept'));
    const leftover = path.join(root, 'left', '.tmp-cut-short');
    await writeFile(leftover, 'half');
    const { utimes } = await import('node:fs/promises');
    assert.equal(await target.removeLeftovers(3_600_000), 0, 'a fresh one may be a write under way');
    await utimes(leftover, new Date(Date.now() - 7_200_000), new Date(Date.now() - 7_200_000));
    assert.equal(await target.removeLeftovers(3_600_000), 1);
    assert.deepEqual(await readdir(path.join(root, 'left')), ['kept.age']);
    await target.remove('left/kept.age');
  });

  test('a directory that does not exist is refused, not created (an off-site disk not mounted)', async () => {
    const missing = path.join(root, 'not-mounted');
    await assert.rejects(openOffsiteTarget({ kind: 'file', path: missing }), /not an existing directory/);
    await assert.rejects(stat(missing), { code: 'ENOENT' });
    await writeFile(path.join(root, 'a-file'), 'x');
    await assert.rejects(openOffsiteTarget({ kind: 'file', path: path.join(root, 'a-file') }), /not an existing directory/);
    await rm(path.join(root, 'a-file'));
  });

  test('an object is a plain file at <root>/<name>; a write under way is a temp file that list never shows', async () => {
    let release!: () => void;
    const paused = new Promise<void>((resolve) => (release = resolve));
    let halfway!: () => void;
    const reachedHalf = new Promise<void>((resolve) => (halfway = resolve));
    const body = (async function* () {
      yield Buffer.from('first half, ');
      halfway();
      await paused;
      yield Buffer.from('second half');
    })();
    const writing = target.putNew('tmp/g1/segments/000000000001.age', body);
    await reachedHalf;
    const folder = path.join(root, 'tmp', 'g1', 'segments');
    const during = await readdir(folder);
    assert.equal(during.length, 1);
    assert.match(during[0]!, /^\.tmp-/);
    assert.deepEqual(await names(target, ''), []);
    assert.deepEqual(await names(target, 'tmp/g1/segments/'), []);
    assert.equal(await target.head('tmp/g1/segments/000000000001.age'), undefined);
    release();
    assert.deepEqual(await writing, { written: true });
    assert.deepEqual(await readdir(folder), ['000000000001.age']);
    assert.deepEqual(await names(target, ''), ['tmp/g1/segments/000000000001.age']);
    await target.remove('tmp/g1/segments/000000000001.age');
  });

  test('a failed body leaves no temp file, and a leftover temp file (a crash) stays out of list', async () => {
    const failing = (async function* () {
      yield Buffer.from('some');
      throw new Error('the encryptor failed');
    })();
    await assert.rejects(target.putNew('fail/x.age', failing), /the encryptor failed/);
    assert.deepEqual(await readdir(path.join(root, 'fail')), []);
    await writeFile(path.join(root, 'fail', '.tmp-leftover'), 'half');
    assert.deepEqual(await names(target, ''), []);
    await rm(path.join(root, 'fail'), { recursive: true });
  });

  test('two writers of one name at once: exactly one writes, the other answers written:false', async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        target.putNew('race/manifest.age', streamOf(Buffer.from(`writer ${index} `.repeat(1000)), 500)),
      ),
    );
    assert.equal(results.filter((result) => result.written).length, 1);
    assert.deepEqual(await readdir(path.join(root, 'race')), ['manifest.age']);
    const kept = (await readAll(await target.get('race/manifest.age'))).toString();
    assert.match(kept, /^(writer \d )+$/);
    await target.remove('race/manifest.age');
  });

  test('list orders as S3 does (byte order of whole names: "a-b" before "a/…"), and remove prunes emptied folders', async () => {
    for (const name of ['ord/a/x', 'ord/a-b', 'ord/a0', 'ord/B', 'ord/a/y/z', 'ord/é']) await target.putNew(name, Buffer.from(name));
    const expected = ['ord/B', 'ord/a-b', 'ord/a/x', 'ord/a/y/z', 'ord/a0', 'ord/é'];
    assert.deepEqual([...expected].sort(byteOrder), expected);
    assert.deepEqual(await names(target, 'ord/'), expected);
    assert.deepEqual(await names(target, 'ord/a'), ['ord/a-b', 'ord/a/x', 'ord/a/y/z', 'ord/a0']);
    for (const name of expected) await target.remove(name);
    assert.deepEqual(await readdir(root), []);
  });

  test('a symlink planted in the directory is not followed', async () => {
    const { symlink } = await import('node:fs/promises');
    await writeFile(path.join(root, 'outside'), 'secret');
    await symlink(path.join(root, 'outside'), path.join(root, 'link.age'));
    await assert.rejects(target.get('link.age'));
    assert.equal(await target.head('link.age'), undefined);
    assert.deepEqual(await names(target, 'link'), []);
    await rm(path.join(root, 'link.age'));
    await rm(path.join(root, 'outside'));
  });
});

// ---------------------------------------------------------------------------------------------
// The S3 target, on s3rver

/**
 * s3rver (3.7.1) makes ListObjectsV2 continuation tokens with DES, which OpenSSL 3 (Node.js 17 and
 * later) no longer offers: every truncated listing answers 500. The tokens are s3rver's own (it
 * reads back only what it wrote), so AES stands in for DES here, key and IV doubled to its sizes;
 * nothing else in this process asks for DES. Real S3's pagination is what the target is written for.
 */
function letS3rverPaginate(): void {
  const { createCipheriv, createDecipheriv } = crypto;
  const standIn = (key: CipherKey, iv: BinaryLike | null) =>
    [
      Buffer.concat([Buffer.from(key as Uint8Array), Buffer.from(key as Uint8Array)]),
      Buffer.concat([Buffer.from(iv as Uint8Array), Buffer.from(iv as Uint8Array)]),
    ] as const;
  Object.assign(crypto, {
    createCipheriv: (algorithm: string, key: CipherKey, iv: BinaryLike | null) =>
      algorithm === 'des' ? createCipheriv('aes-128-cbc', ...standIn(key, iv)) : createCipheriv(algorithm, key, iv),
    createDecipheriv: (algorithm: string, key: CipherKey, iv: BinaryLike | null) =>
      algorithm === 'des' ? createDecipheriv('aes-128-cbc', ...standIn(key, iv)) : createDecipheriv(algorithm, key, iv),
  });
}

let s3: TestS3;
before(async () => {
  letS3rverPaginate();
  s3 = await startTestS3(undefined, { recordHeaders: true });
});
after(() => s3.close());

const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function s3Config(overrides: Partial<S3TargetConfig> = {}): S3TargetConfig {
  return {
    bucket: s3.bucket,
    prefix: 'offsite/main',
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    ...S3RVER_CREDENTIALS,
    timeoutSeconds: 10,
    lockDays: 0,
    ...overrides,
  };
}

const isListing = (request: S3Request) => request.method === 'GET' && new URLSearchParams(request.query).get('list-type') === '2';

describeTarget('s3 (s3rver, prefix offsite/main, 5 keys a page)', async () => {
  const target = await openOffsiteTarget({ kind: 's3', bucket: s3.bucket, prefix: 'offsite/main' }, { ...s3Config(), pageSize: 5 });
  return { target, listRequests: () => s3.requests.filter(isListing).length, cleanup: () => target.close() };
});

describe('offsite target: s3 specifics', () => {
  test('objects live at <prefix>/<name>; a target whose prefix merely starts alike, or another bucket, sees none of them', async () => {
    const main = new S3Target(s3Config({ prefix: 'iso/main' }));
    const sibling = new S3Target(s3Config({ prefix: 'iso/main-b' }));
    const top = new S3Target(s3Config({ prefix: '' }));
    try {
      await main.putNew('generations/g1/manifest.age', Buffer.from('main'));
      await sibling.putNew('generations/g1/manifest.age', Buffer.from('sibling'));
      assert.ok((await s3.keys()).includes('iso/main/generations/g1/manifest.age'));
      assert.deepEqual(await names(main, ''), ['generations/g1/manifest.age']);
      assert.deepEqual(await names(sibling, ''), ['generations/g1/manifest.age']);
      assert.equal((await readAll(await sibling.get('generations/g1/manifest.age'))).toString(), 'sibling');
      // Compared as a set: s3rver lists folder by folder ('iso/main/…' before 'iso/main-b/…'), where
      // S3 orders whole keys by their bytes ('-' before '/').
      assert.deepEqual((await names(top, 'iso/')).sort(byteOrder), [
        'iso/main-b/generations/g1/manifest.age',
        'iso/main/generations/g1/manifest.age',
      ]);
      assert.equal(main.description, `s3://${s3.bucket}/iso/main at ${s3.endpoint}`);
      // A second bucket of the same store, same prefix: its own objects only.
      const admin = new S3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
      await admin.send(new CreateBucketCommand({ Bucket: `${s3.bucket}-second` }));
      admin.destroy();
      const elsewhere = new S3Target(s3Config({ bucket: `${s3.bucket}-second`, prefix: 'iso/main' }));
      try {
        assert.deepEqual(await names(elsewhere, ''), []);
        assert.equal(await elsewhere.head('generations/g1/manifest.age'), undefined);
        assert.deepEqual(await elsewhere.putNew('generations/g1/manifest.age', Buffer.from('second bucket')), { written: true });
        assert.equal((await readAll(await main.get('generations/g1/manifest.age'))).toString(), 'main');
      } finally {
        await elsewhere.close();
      }
    } finally {
      await Promise.all([main.close(), sibling.close(), top.close()]);
    }
  });

  test('every write asks S3 not to replace (If-None-Match: *), on PutObject and on CompleteMultipartUpload', async () => {
    const target = new S3Target(s3Config({ prefix: 'cond' }));
    try {
      const from = s3.requests.length;
      await target.putNew('small.age', Buffer.from('small'));
      await target.putNew('big.age', streamOf(BIG.subarray(0, 9 * MiB)));
      const writes = s3.requests.slice(from).filter(isObjectWrite);
      assert.deepEqual(
        writes.map((request) => writeKind(request)),
        ['PutObject', 'CreateMultipartUpload', 'CompleteMultipartUpload'],
      );
      assert.equal(writes[0]!.headers!['if-none-match'], '*');
      assert.equal(writes[2]!.headers!['if-none-match'], '*');
      // No lock asked: no lock headers, and no checksum (WHEN_REQUIRED, as for the service's own bucket).
      for (const request of s3.requests.slice(from)) {
        assert.equal(request.headers!['x-amz-object-lock-mode'], undefined);
        assert.equal(request.headers!['x-amz-checksum-sha256'], undefined);
      }
    } finally {
      await target.close();
    }
  });

  test('with lockDays=30 every PutObject and CreateMultipartUpload carries COMPLIANCE Object Lock until ~30 days ahead, with a sha256 checksum', async () => {
    const target = new S3Target(s3Config({ prefix: 'locked', lockDays: 30 }));
    try {
      const from = s3.requests.length;
      const writtenAt = Date.now();
      const big = BIG.subarray(0, 9 * MiB);
      await target.putNew('generations/g1/segments/000000000001.age', Buffer.from('segment'));
      await target.putNew('blobs/9f.age', streamOf(big), { size: big.length });
      const requests = s3.requests.slice(from);
      const creations = requests.filter((request) => ['PutObject', 'CreateMultipartUpload'].includes(writeKind(request) ?? ''));
      assert.equal(creations.length, 2, 'one PutObject, one CreateMultipartUpload');
      for (const request of creations) {
        const headers = request.headers!;
        assert.equal(headers['x-amz-object-lock-mode'], 'COMPLIANCE', request.path);
        const until = Date.parse(headers['x-amz-object-lock-retain-until-date'] ?? '');
        const days = (until - writtenAt) / 86_400_000;
        assert.ok(days > 29.99 && days < 30.01, `retained until ${headers['x-amz-object-lock-retain-until-date']}`);
      }
      // The checksum real S3 requires of a locked write: on the PutObject, and on each part.
      assert.match(creations[0]!.headers!['x-amz-checksum-sha256'] ?? '', /^[A-Za-z0-9+/]{43}=$/);
      assert.equal(creations[1]!.headers!['x-amz-checksum-algorithm'], 'SHA256');
      const parts = requests.filter((request) => writeKind(request) === 'UploadPart');
      assert.equal(parts.length, 2);
      for (const part of parts) assert.match(part.headers!['x-amz-checksum-sha256'] ?? '', /^[A-Za-z0-9+/]{43}=$/);
      // s3rver took those headers, and the bytes are the bytes (no aws-chunked framing stored).
      assert.equal((await readAll(await target.get('generations/g1/segments/000000000001.age'))).toString(), 'segment');
      assert.equal(sha256(await readAll(await target.get('blobs/9f.age'))), sha256(big));
    } finally {
      await target.close();
    }
  });

  test('a store error names the target and the S3 error code, never a credential', async () => {
    const wrongKey = new S3Target(s3Config({ accessKeyId: 'NOT-A-KEY-1234', secretAccessKey: 'very-secret-5678' }));
    const noBucket = new S3Target(s3Config({ bucket: 'no-such-bucket-here' }));
    try {
      await assert.rejects(wrongKey.get('x.age'), (error: Error) => {
        assert.ok(
          error.message.startsWith(`${wrongKey.description}: reading "x.age" failed (InvalidAccessKeyId, HTTP 403)`),
          error.message,
        );
        assert.doesNotMatch(error.message, /very-secret-5678|NOT-A-KEY-1234/);
        assert.equal(error.cause, undefined);
        return true;
      });
      await assert.rejects(
        noBucket.get('x.age'),
        /^Error: s3:\/\/no-such-bucket-here\/offsite\/main at .*: reading "x.age" failed \(NoSuchBucket, HTTP 404\)/,
      );
      await assert.rejects(noBucket.putNew('x.age', Buffer.from('x')), /NoSuchBucket, HTTP 404/);
      await assert.rejects(listAll(noBucket, ''), /listing "" failed \(NoSuchBucket, HTTP 404\)/);
    } finally {
      await Promise.all([wrongKey.close(), noBucket.close()]);
    }
  });
});

type WriteKind = 'PutObject' | 'UploadPart' | 'CreateMultipartUpload' | 'CompleteMultipartUpload';

/** Which S3 operation a recorded write request was, by its method and query. */
function writeKind(request: S3Request): WriteKind | undefined {
  const query = new URLSearchParams(request.query ?? '');
  if (request.method === 'PUT') return query.has('partNumber') ? 'UploadPart' : 'PutObject';
  if (request.method === 'POST' && query.has('uploads')) return 'CreateMultipartUpload';
  if (request.method === 'POST' && query.has('uploadId')) return 'CompleteMultipartUpload';
  return undefined;
}

function isObjectWrite(request: S3Request): boolean {
  const kind = writeKind(request);
  return kind !== undefined && kind !== 'UploadPart';
}

// ---------------------------------------------------------------------------------------------
// What s3rver does not do: a store that enforces If-None-Match, faked just enough.

describe('offsite target: s3 conditional write refused (412), as real S3 does when another writer got there first', () => {
  let server: Server;
  let endpoint: string;
  let answer: { status: number; code: string };
  const seen: { method: string; ifNoneMatch: string | undefined }[] = [];
  before(async () => {
    server = createServer((request, response) => {
      seen.push({ method: request.method ?? '', ifNoneMatch: request.headers['if-none-match'] as string | undefined });
      request.resume();
      request.on('end', () => {
        // HEAD: not there yet (the other writer is still uploading); the write then meets its object.
        if (request.method === 'HEAD') {
          response.writeHead(404).end();
          return;
        }
        response.writeHead(answer.status, { 'content-type': 'application/xml' });
        response.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${answer.code}</Code><Message>refused</Message></Error>`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('412 PreconditionFailed: written:false; 409 ConditionalRequestConflict and 403: an error naming the code', async () => {
    const target = new S3Target({ ...s3Config({ endpoint, bucket: 'fake-bucket' }) });
    try {
      answer = { status: 412, code: 'PreconditionFailed' };
      assert.deepEqual(await target.putNew('generations/g1/manifest.age', Buffer.from('late')), { written: false });
      assert.deepEqual(
        seen.map((request) => [request.method, request.ifNoneMatch]),
        [
          ['HEAD', undefined],
          ['PUT', '*'],
        ],
      );
      answer = { status: 409, code: 'ConditionalRequestConflict' };
      await assert.rejects(target.putNew('generations/g1/manifest.age', Buffer.from('late')), /\(ConditionalRequestConflict, HTTP 409\)/);
      answer = { status: 403, code: 'AccessDenied' };
      await assert.rejects(
        target.putNew('generations/g1/manifest.age', Buffer.from('late')),
        /^Error: s3:\/\/fake-bucket\/offsite\/main at http:\/\/127\.0\.0\.1:\d+: writing "generations\/g1\/manifest\.age" failed \(AccessDenied, HTTP 403\): refused$/,
      );
    } finally {
      await target.close();
    }
  });
});
