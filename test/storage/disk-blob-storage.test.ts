import assert from 'node:assert/strict';
import { mkdir, mkdtemp, open, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { isAppError } from '../../src/errors/app-error.ts';
import { DiskBlobStorage } from '../../src/storage/disk-blob-storage.ts';
import { toStorageError } from '../../src/storage/fs-errors.ts';
import { describeBlobStorageContract } from './blob-storage.contract.ts';

describeBlobStorageContract('disk', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'blob-contract-'));
  return { storage: new DiskBlobStorage(root), cleanup: () => rm(root, { recursive: true, force: true }) };
});

describe('DiskBlobStorage on its own terms', () => {
  let sandbox: string;
  let root: string;
  let storage: DiskBlobStorage;
  const canary = () => path.join(sandbox, 'canary.txt');

  before(async () => {
    sandbox = await mkdtemp(path.join(os.tmpdir(), 'blob-disk-'));
    root = path.join(sandbox, 'root');
    storage = new DiskBlobStorage(root);
    await writeFile(canary(), 'canary');
  });
  after(() => rm(sandbox, { recursive: true, force: true }));

  test('a blob is a plain file at <root>/<key>, so any web server could serve it', async () => {
    await storage.put('files/chn_1/docs/a.txt', Readable.from([Buffer.from('plain')]));
    assert.equal(await readFile(path.join(root, 'files', 'chn_1', 'docs', 'a.txt'), 'utf8'), 'plain');
  });

  test('link is a hard link: same inode, no copy', async () => {
    await storage.put('files/chn_1/docs/linked.txt', Readable.from([Buffer.from('shared')]));
    await storage.link('files/chn_1/docs/linked.txt', 'backups/chn_1/ts/docs/linked.txt');
    const live = await stat(path.join(root, 'files', 'chn_1', 'docs', 'linked.txt'));
    const backup = await stat(path.join(root, 'backups', 'chn_1', 'ts', 'docs', 'linked.txt'));
    assert.equal(live.ino, backup.ino);
    assert.equal(live.nlink, 2);
  });

  test('a put never rewrites the old inode: a reader holding the old file keeps the old bytes', async () => {
    const file = path.join(root, 'files', 'chn_1', 'docs', 'reader.txt');
    await storage.put('files/chn_1/docs/reader.txt', Readable.from([Buffer.from('old old old')]));
    const handle = await open(file, 'r');
    try {
      await storage.put('files/chn_1/docs/reader.txt', Readable.from([Buffer.from('new')]));
      assert.equal((await handle.readFile()).toString(), 'old old old');
      assert.equal(await readFile(file, 'utf8'), 'new');
    } finally {
      await handle.close();
    }
  });

  test('a planted symlink to a file outside the root is never followed', async () => {
    const before = await stat(canary());
    await mkdir(path.join(root, 'files', 'chn_evil', 'docs'), { recursive: true });
    await symlink(canary(), path.join(root, 'files', 'chn_evil', 'docs', 'link.txt'));
    await symlink(path.dirname(canary()), path.join(root, 'files', 'chn_evil', 'dirlink'));
    assert.equal(await storage.get('files/chn_evil/docs/link.txt'), undefined);
    assert.equal(await storage.stat('files/chn_evil/docs/link.txt'), undefined);
    const throughDirectoryLink = [
      () => storage.get('files/chn_evil/dirlink/canary.txt'),
      () => storage.stat('files/chn_evil/dirlink/canary.txt'),
      () => storage.put('files/chn_evil/dirlink/canary.txt', Readable.from([Buffer.from('through a directory link')])),
      () => storage.put('files/chn_evil/dirlink/new/deeper.txt', Readable.from([Buffer.from('x')])),
      () => storage.delete('files/chn_evil/dirlink/canary.txt'),
      () => storage.link('files/chn_1/docs/a.txt', 'files/chn_evil/dirlink/planted.txt'),
      () => storage.copyReplace('files/chn_1/docs/a.txt', 'files/chn_evil/dirlink/canary.txt'),
      async () => { for await (const _ of storage.list('files/chn_evil/dirlink')) break; },
    ];
    for (const attempt of throughDirectoryLink) {
      await assert.rejects(attempt(), (error: unknown) => isAppError(error) && error.code === 'INVALID_PATH');
    }
    assert.equal(await storage.get('files/chn_1/docs/a.txt/below-a-file'), undefined);
    const listed = [];
    for await (const blob of storage.list('files/chn_evil')) listed.push(blob.key);
    assert.deepEqual(listed, []);
    await assert.rejects(storage.link('files/chn_evil/docs/link.txt', 'versions/chn_evil/v1'));
    await assert.rejects(storage.copyReplace('files/chn_evil/docs/link.txt', 'files/chn_evil/docs/copy.txt'));
    // A put onto the link's name replaces the link itself (rename), never writes through it.
    await storage.put('files/chn_evil/docs/link.txt', Readable.from([Buffer.from('overwritten?')]));
    const after = await stat(canary());
    assert.equal(await readFile(canary(), 'utf8'), 'canary');
    assert.equal(after.mtimeMs, before.mtimeMs);
  });

  test('removeLeftovers removes the temporary files a crash left, at any depth, and counts them', async () => {
    const dir = path.join(root, 'files', 'chn_2', 'deep', 'er');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, '.wa-tmp-aaaa'), 'torn');
    await writeFile(path.join(root, 'files', 'chn_2', '.wa-tmp-bbbb'), 'torn');
    await storage.put('files/chn_2/deep/er/real.txt', Readable.from([Buffer.from('real')]));
    assert.equal(await storage.removeLeftovers(), 2);
    assert.equal(await storage.removeLeftovers(), 0);
    assert.equal(await readFile(path.join(dir, 'real.txt'), 'utf8'), 'real');
  });

  test('a full disk becomes INSUFFICIENT_STORAGE (507), other failures pass through', () => {
    for (const code of ['ENOSPC', 'EDQUOT']) {
      const mapped = toStorageError(Object.assign(new Error('no space'), { code }));
      assert.ok(isAppError(mapped) && mapped.code === 'INSUFFICIENT_STORAGE' && mapped.status === 507);
    }
    const other = Object.assign(new Error('io'), { code: 'EIO' });
    assert.equal(toStorageError(other), other);
  });
});
