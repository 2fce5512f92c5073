import assert from 'node:assert/strict';
import { lstat, mkdir, mkdtemp, open, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { copyInsteadOfLink, DiskBlobStorage } from '../../src/blobs/disk-blob-storage.ts';
import { toStorageError } from '../../src/blobs/fs-errors.ts';
import { TEMP_PREFIX } from '../../src/blobs/temp-files.ts';
import { AppError, isAppError } from '../../src/errors/app-error.ts';
import { assertAppError, bodyOf, describeBlobStorageContract, listedKeys, readAll, sha256Hex, textOf } from './blob-storage.contract.ts';

describeBlobStorageContract('disk', async () => {
  const root = await mkdtemp(path.join(os.tmpdir(), 'blob-contract-'));
  return { storage: new DiskBlobStorage(root), cleanup: () => rm(root, { recursive: true, force: true }) };
});

/** Every regular file and symlink under `directory`, relative, '/'-separated. */
async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => !entry.isDirectory())
    .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

describe('DiskBlobStorage on disk', () => {
  let sandbox: string;
  let root: string;
  let storage: DiskBlobStorage;

  before(async () => {
    sandbox = await mkdtemp(path.join(os.tmpdir(), 'blob-disk-'));
    root = path.join(sandbox, 'data', 'storage');
    storage = new DiskBlobStorage(root);
  });
  after(() => rm(sandbox, { recursive: true, force: true }));

  const onDisk = (key: string) => path.join(root, ...key.split('/'));

  test('the root is created, and a blob is a plain file at <root>/<key> with nothing beside it, so any web server could serve it', async () => {
    assert.ok((await stat(root)).isDirectory());
    await storage.put('files/chn_1/docs/a.txt', bodyOf('plain ', 'bytes'));
    const info = await lstat(onDisk('files/chn_1/docs/a.txt'));
    assert.ok(info.isFile() && !info.isSymbolicLink());
    assert.equal(await readFile(onDisk('files/chn_1/docs/a.txt'), 'utf8'), 'plain bytes');
    assert.deepEqual(await readdir(onDisk('files/chn_1/docs')), ['a.txt'], 'no temporary file or sidecar is left beside it');
    assert.equal((await storage.stat('files/chn_1/docs/a.txt'))?.modifiedAt, Math.floor(info.mtimeMs));
  });

  test('copy is a hard link (same inode, nlink 2), so a restore writes no bytes; a later put of the source gives it a new inode', async () => {
    await storage.put('versions/chn_1/v0', bodyOf('shared'));
    await storage.copy('versions/chn_1/v0', 'objects/chn_1/ab/linked', { expectedSha256: sha256Hex('shared') });
    const version = await stat(onDisk('versions/chn_1/v0'));
    const restored = await stat(onDisk('objects/chn_1/ab/linked'));
    assert.equal(version.ino, restored.ino);
    assert.equal(version.dev, restored.dev);
    assert.equal(version.nlink, 2);

    await storage.put('versions/chn_1/v0', bodyOf('replaced'));
    assert.notEqual((await stat(onDisk('versions/chn_1/v0'))).ino, version.ino);
    const kept = await stat(onDisk('objects/chn_1/ab/linked'));
    assert.equal(kept.ino, restored.ino);
    assert.equal(kept.nlink, 1);
    assert.equal(await readFile(onDisk('objects/chn_1/ab/linked'), 'utf8'), 'shared');
  });

  test('a put never rewrites the old inode: a reader holding the old file, or an unread get stream, keeps the old bytes', async () => {
    const key = 'files/chn_1/docs/reader.txt';
    const old = 'old old old, longer than what replaces it';
    await storage.put(key, bodyOf(old));
    const oldInode = (await stat(onDisk(key))).ino;
    const handle = await open(onDisk(key), 'r');
    try {
      const pending = await storage.get(key);
      const pendingRange = await storage.get(key, { start: 4, end: 6 });
      await storage.put(key, bodyOf('new'));
      assert.equal((await handle.readFile()).toString(), old);
      assert.equal((await readAll(pending))?.toString(), old);
      assert.equal((await readAll(pendingRange))?.toString(), 'old');
      assert.equal(await readFile(onDisk(key), 'utf8'), 'new');
      assert.notEqual((await stat(onDisk(key))).ino, oldInode);
    } finally {
      await handle.close();
    }
  });

  test('copy never replaces: onto an existing blob it is refused and both keep their bytes; a source that does not hash as recorded creates nothing', async () => {
    await storage.put('objects/chn_1/cd/existing', bodyOf('already here'));
    await storage.put('versions/chn_1/v1', bodyOf('an older version'));
    await assertAppError(
      storage.copy('versions/chn_1/v1', 'objects/chn_1/cd/existing', { expectedSha256: sha256Hex('an older version') }),
      'INTERNAL_ERROR',
    );
    assert.equal(await readFile(onDisk('objects/chn_1/cd/existing'), 'utf8'), 'already here');
    assert.equal(await readFile(onDisk('versions/chn_1/v1'), 'utf8'), 'an older version');
    await assertAppError(
      storage.copy('versions/chn_1/v1', 'objects/chn_1/cd/new', { expectedSha256: sha256Hex('something else') }),
      'INTEGRITY_FAILED',
    );
    assert.deepEqual(await readdir(onDisk('objects/chn_1/cd')), ['existing'], 'nothing created, no temporary name left');
  });

  test('failed writes leave no temporary file on disk', async () => {
    const directory = onDisk('files/chn_tmp/docs');
    await storage.put('files/chn_tmp/docs/f', bodyOf('kept'));
    await storage.put('files/chn_tmp/docs/src', bodyOf('source'));
    await assertAppError(storage.put('files/chn_tmp/docs/f', bodyOf('x'.repeat(100)), { maxBytes: 10 }), 'PAYLOAD_TOO_LARGE');
    await assertAppError(
      storage.copy('files/chn_tmp/docs/src', 'files/chn_tmp/docs/g', { expectedSha256: '0'.repeat(64) }),
      'INTEGRITY_FAILED',
    );
    await assertAppError(
      storage.copy('files/chn_tmp/docs/src', 'files/chn_tmp/docs/f', { expectedSha256: sha256Hex('source') }),
      'INTERNAL_ERROR',
    );
    assert.deepEqual((await readdir(directory)).sort(), ['f', 'src']);
    assert.equal(await readFile(path.join(directory, 'f'), 'utf8'), 'kept');
  });

  test('delete prunes the folders it empties, but never the first level under the root, nor a folder still in use', async () => {
    await storage.put('versions/chn_p/a/b/c/only', bodyOf('1'));
    await storage.put('versions/chn_p/a/keep', bodyOf('2'));
    assert.equal(await storage.delete('versions/chn_p/a/b/c/only'), true);
    await assert.rejects(stat(onDisk('versions/chn_p/a/b')), { code: 'ENOENT' });
    assert.ok((await stat(onDisk('versions/chn_p/a'))).isDirectory());
    assert.equal(await storage.delete('versions/chn_p/a/keep'), true);
    await assert.rejects(stat(onDisk('versions/chn_p')), { code: 'ENOENT' });
    assert.ok((await stat(onDisk('versions'))).isDirectory(), 'the first level stays');
    await storage.put('chn_solo/docs/only', bodyOf('1'));
    assert.equal(await storage.delete('chn_solo/docs/only'), true);
    await assert.rejects(stat(onDisk('chn_solo/docs')), { code: 'ENOENT' });
    assert.deepEqual(await readdir(onDisk('chn_solo')), [], 'the first level stays even when it is empty');
  });

  test('copyInsteadOfLink (the fallback where hard links are refused) makes an independent full copy, and never onto an existing file', async () => {
    await storage.put('files/chn_c/src', bodyOf('to copy'));
    await copyInsteadOfLink(onDisk('files/chn_c/src'), onDisk('files/chn_c/copy'));
    assert.equal(await textOf(storage, 'files/chn_c/copy'), 'to copy');
    assert.notEqual((await stat(onDisk('files/chn_c/src'))).ino, (await stat(onDisk('files/chn_c/copy'))).ino);
    await storage.put('files/chn_c/src', bodyOf('changed'));
    assert.equal(await textOf(storage, 'files/chn_c/copy'), 'to copy');
    await assertAppError(copyInsteadOfLink(onDisk('files/chn_c/src'), onDisk('files/chn_c/copy')), 'INTERNAL_ERROR');
    assert.equal(await textOf(storage, 'files/chn_c/copy'), 'to copy');
    await assertAppError(copyInsteadOfLink(onDisk('files/chn_c/missing'), onDisk('files/chn_c/other')), 'NOT_FOUND');
    await assertAppError(
      copyInsteadOfLink(onDisk('files/chn_c/src'), onDisk('files/chn_c/other'), sha256Hex('to copy')),
      'INTEGRITY_FAILED',
    );
    assert.deepEqual(await readdir(onDisk('files/chn_c')), ['copy', 'src']);
  });

  test('ping is STORAGE_UNAVAILABLE once the root is gone (a volume unmounted under the service)', async () => {
    const gone = path.join(sandbox, 'vanishing');
    const vanishing = new DiskBlobStorage(gone);
    await vanishing.ping();
    await rm(gone, { recursive: true });
    await assertAppError(vanishing.ping(), 'STORAGE_UNAVAILABLE');
    await assert.rejects(vanishing.ping(), /ENOENT/);
  });

  test('removeLeftovers removes the temporary files a crash left at any depth, counts them, and touches nothing else', async () => {
    const crashed = [
      path.join(root, `${TEMP_PREFIX}at-the-root`),
      onDisk(`files/${TEMP_PREFIX}first-level`),
      onDisk(`files/chn_2/${TEMP_PREFIX}second-level`),
      onDisk(`files/chn_2/deep/er/still/${TEMP_PREFIX}0123456789abcdef01234567`),
      onDisk(`files/chn_2/deep/er/still/${TEMP_PREFIX}another`),
    ];
    for (const file of crashed) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, 'torn half of a put');
    }
    // Look-alikes that are not ours: a name merely containing the prefix.
    await storage.put('files/chn_2/deep/er/still/real.txt', bodyOf('real'));
    await storage.put('files/chn_2/not.wa-tmp-x', bodyOf('a blob'));
    assert.deepEqual(
      await listedKeys(storage, 'files/chn_2'),
      ['files/chn_2/deep/er/still/real.txt', 'files/chn_2/not.wa-tmp-x'],
      'list never shows temporary files',
    );

    assert.equal(await storage.removeLeftovers(), crashed.length);
    for (const file of crashed) await assert.rejects(stat(file), { code: 'ENOENT' }, file);
    assert.equal(await storage.removeLeftovers(), 0);
    assert.equal(await textOf(storage, 'files/chn_2/deep/er/still/real.txt'), 'real');
    assert.equal(await textOf(storage, 'files/chn_2/not.wa-tmp-x'), 'a blob');
  });

  test('a full disk becomes INSUFFICIENT_STORAGE (507), unwritable storage STORAGE_UNAVAILABLE (503), a path too long for the filesystem INVALID_PATH; anything else passes unchanged', () => {
    const errno = (code: string) =>
      Object.assign(new Error(`${code}: simulated, open '/srv/data/storage/x'`), { code, errno: -1, syscall: 'open' });
    for (const code of ['ENOSPC', 'EDQUOT']) {
      const mapped = toStorageError(errno(code));
      assert.ok(isAppError(mapped), code);
      assert.equal(mapped.code, 'INSUFFICIENT_STORAGE');
      assert.equal(mapped.status, 507);
    }
    const tooLong = toStorageError(errno('ENAMETOOLONG'));
    assert.ok(isAppError(tooLong) && tooLong.code === 'INVALID_PATH' && tooLong.status === 400);
    for (const code of ['EACCES', 'EPERM', 'EROFS', 'EIO']) {
      const cause = errno(code);
      const mapped = toStorageError(cause);
      assert.ok(isAppError(mapped), code);
      assert.equal(mapped.code, 'STORAGE_UNAVAILABLE');
      assert.equal(mapped.status, 503);
      assert.equal(mapped.cause, cause, 'the log keeps the cause');
      assert.doesNotMatch(mapped.message, /\/srv/, 'the client learns no path');
    }
    for (const other of [errno('EBADF'), new Error('plain'), new AppError('NOT_FOUND', 'already mapped')]) {
      assert.equal(toStorageError(other), other);
    }
  });

  test('a key whose folder fits the filesystem but whose full path does not is INVALID_PATH for every method', async () => {
    const folderSegments: string[] = [];
    while (Buffer.byteLength(path.join(root, 'files', ...folderSegments)) < 4096 - 300) folderSegments.push('d'.repeat(200));
    const key = ['files', ...folderSegments, 'f'.repeat(250)].join('/');
    assert.ok(Buffer.byteLength(onDisk(key)) > 4096);
    await storage.put('files/chn_1/short', bodyOf('short'));
    await assertAppError(storage.put(key, bodyOf('x')), 'INVALID_PATH', 'put');
    await assertAppError(storage.get(key), 'INVALID_PATH', 'get');
    await assertAppError(storage.stat(key), 'INVALID_PATH', 'stat');
    await assertAppError(storage.delete(key), 'INVALID_PATH', 'delete');
    const expectedSha256 = sha256Hex('short');
    await assertAppError(storage.copy(key, 'files/chn_1/copied-long', { expectedSha256 }), 'INVALID_PATH', 'copy from');
    await assertAppError(storage.copy('files/chn_1/short', key, { expectedSha256 }), 'INVALID_PATH', 'copy to');
    assert.equal(await textOf(storage, 'files/chn_1/short'), 'short');
  });

  test('a root that is itself a symbolic link (a data directory on another volume) works as usual', async () => {
    const real = path.join(sandbox, 'elsewhere', 'volume');
    await mkdir(real, { recursive: true });
    const linkedRoot = path.join(sandbox, 'linked-root');
    await symlink(real, linkedRoot);
    const linked = new DiskBlobStorage(linkedRoot);
    await linked.put('files/chn/a', bodyOf('through the root link'));
    await linked.copy('files/chn/a', 'backups/chn/a', { expectedSha256: sha256Hex('through the root link') });
    await linked.copy('files/chn/a', 'files/chn/b', { expectedSha256: sha256Hex('through the root link') });
    assert.equal(await textOf(linked, 'backups/chn/a'), 'through the root link');
    assert.deepEqual(await listedKeys(linked, 'files/chn'), ['files/chn/a', 'files/chn/b']);
    assert.equal(await linked.delete('files/chn/b'), true);
    assert.deepEqual(await filesUnder(real), ['backups/chn/a', 'files/chn/a']);
  });
});

describe('DiskBlobStorage and symbolic links planted inside its root', () => {
  let sandbox: string;
  let root: string;
  let outside: string;
  let canary: string;
  let storage: DiskBlobStorage;
  let canaryBefore: { mtimeMs: number; ino: number };
  const CANARY = 'canary: must never be read or written through the storage';

  before(async () => {
    sandbox = await mkdtemp(path.join(os.tmpdir(), 'blob-symlinks-'));
    root = path.join(sandbox, 'root');
    outside = path.join(sandbox, 'outside');
    canary = path.join(outside, 'canary.txt');
    await mkdir(outside);
    await writeFile(canary, CANARY);
    // Bait for removeLeftovers: a "leftover" that is only reachable through a link.
    await writeFile(path.join(outside, `${TEMP_PREFIX}not-yours`), 'outside temp');
    const info = await stat(canary);
    canaryBefore = { mtimeMs: info.mtimeMs, ino: info.ino };

    storage = new DiskBlobStorage(root);
    await storage.put('files/chn_ok/docs/real.txt', bodyOf('a real blob'));
    await mkdir(path.join(root, 'files', 'chn_evil', 'docs'), { recursive: true });
    await symlink(canary, path.join(root, 'files', 'chn_evil', 'docs', 'file-link.txt'));
    await symlink(canary, path.join(root, 'files', 'chn_evil', 'docs', 'second-file-link.txt'));
    await symlink(outside, path.join(root, 'files', 'chn_evil', 'dir-link'));
    await symlink(outside, path.join(root, 'top-link'));
    await symlink('../../../../outside', path.join(root, 'files', 'chn_evil', 'docs', 'relative-link'));
  });
  after(() => rm(sandbox, { recursive: true, force: true }));

  const throughDirectoryLinks = [
    'files/chn_evil/dir-link/canary.txt',
    'top-link/canary.txt',
    'files/chn_evil/docs/relative-link/canary.txt',
  ];

  test('a symlink in place of a blob is no blob: get, stat and copy do not follow it', async () => {
    const key = 'files/chn_evil/docs/file-link.txt';
    assert.equal(await storage.get(key), undefined);
    assert.equal(await storage.get(key, { start: 0, end: 3 }), undefined);
    assert.equal(await storage.stat(key), undefined);
    await assertAppError(storage.copy(key, 'backups/chn_evil/leak', { expectedSha256: sha256Hex(CANARY) }), 'NOT_FOUND');
    await assertAppError(storage.copy(key, 'files/chn_evil/docs/copy.txt', { expectedSha256: sha256Hex(CANARY) }), 'NOT_FOUND');
    assert.equal(await storage.stat('backups/chn_evil/leak'), undefined);
    assert.equal(await storage.stat('files/chn_evil/docs/copy.txt'), undefined);
    assert.equal(await readlink(path.join(root, 'files', 'chn_evil', 'docs', 'file-link.txt')), canary, 'the link itself is left alone');
  });

  test('list reports neither symlinked files nor anything behind a symlinked folder', async () => {
    assert.deepEqual(await listedKeys(storage, 'files/chn_evil'), []);
    assert.deepEqual(await listedKeys(storage, 'files'), ['files/chn_ok/docs/real.txt']);
    await assertAppError(listedKeys(storage, 'files/chn_evil/dir-link'), 'INVALID_PATH');
    await assertAppError(listedKeys(storage, 'top-link'), 'INVALID_PATH');
  });

  test('every method refuses a key that passes through a symlinked folder, whether the target exists or not', async () => {
    for (const key of throughDirectoryLinks) {
      const sibling = `${path.posix.dirname(key)}/planted.txt`;
      await assertAppError(storage.get(key), 'INVALID_PATH', `get ${key}`);
      await assertAppError(storage.stat(key), 'INVALID_PATH', `stat ${key}`);
      await assertAppError(storage.put(key, bodyOf('written through a link')), 'INVALID_PATH', `put ${key}`);
      await assertAppError(storage.put(sibling, bodyOf('planted')), 'INVALID_PATH', `put ${sibling}`);
      await assertAppError(storage.put(`${path.posix.dirname(key)}/new/deeper.txt`, bodyOf('x')), 'INVALID_PATH', `put below ${key}`);
      await assertAppError(storage.delete(key), 'INVALID_PATH', `delete ${key}`);
      const expectedSha256 = sha256Hex('a real blob');
      await assertAppError(storage.copy(key, 'backups/chn_evil/stolen', { expectedSha256 }), 'INVALID_PATH', `copy from ${key}`);
      await assertAppError(storage.copy('files/chn_ok/docs/real.txt', sibling, { expectedSha256 }), 'INVALID_PATH', `copy to ${sibling}`);
      await assertAppError(storage.copy('files/chn_ok/docs/real.txt', key, { expectedSha256 }), 'INVALID_PATH', `copy to ${key}`);
    }
    assert.equal(await storage.stat('backups/chn_evil/stolen'), undefined);
  });

  test("a put onto a symlink's own name replaces the link, and a copy onto it is refused: neither writes through it", async () => {
    await storage.put('files/chn_evil/docs/file-link.txt', bodyOf('replaces the link'));
    assert.ok((await lstat(path.join(root, 'files', 'chn_evil', 'docs', 'file-link.txt'))).isFile());
    assert.equal(await textOf(storage, 'files/chn_evil/docs/file-link.txt'), 'replaces the link');
    await assertAppError(
      storage.copy('files/chn_ok/docs/real.txt', 'files/chn_evil/docs/second-file-link.txt', { expectedSha256: sha256Hex('a real blob') }),
      'INTERNAL_ERROR',
    );
    assert.ok((await lstat(path.join(root, 'files', 'chn_evil', 'docs', 'second-file-link.txt'))).isSymbolicLink());
  });

  test('removeLeftovers does not reach through symlinks', async () => {
    assert.equal(await storage.removeLeftovers(), 0);
    assert.equal(await readFile(path.join(outside, `${TEMP_PREFIX}not-yours`), 'utf8'), 'outside temp');
  });

  test('afterwards the canary is untouched and nothing was added outside the root', async () => {
    const info = await stat(canary);
    assert.equal(await readFile(canary, 'utf8'), CANARY);
    assert.equal(info.mtimeMs, canaryBefore.mtimeMs);
    assert.equal(info.ino, canaryBefore.ino);
    assert.equal(info.nlink, 1, 'no hard link to the canary was made inside the root');
    assert.deepEqual(await readdir(outside), ['.wa-tmp-not-yours', 'canary.txt'].sort());
    assert.deepEqual((await readdir(sandbox)).sort(), ['outside', 'root']);
  });
});
