import { constants, mkdirSync, realpathSync } from 'node:fs';
import { access, type FileHandle, link as hardLink, lstat, open, realpath, rm, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { AppError } from '../errors/app-error.ts';
import { errnoCode } from '../errors/errno-code.ts';
import { type AtomicWriteOptions, writeAtomically } from './atomic-write.ts';
import { assertExpectedSha256, assertExpectedSize, assertRangeShape, rangeBeyondEnd, sourceNotFound, targetExists } from './blob-errors.ts';
import type { BlobInfo, BlobStorage, ByteRange, CopyOptions, PutOptions, StoredBlob } from './blob-storage.ts';
import { walkFiles } from './directory-walk.ts';
import { fsyncDirectory, makeDirectories } from './durable-directories.ts';
import { toStorageError } from './fs-errors.ts';
import { resolveInside, safeSegment } from './safe-path.ts';
import { Sha256Meter } from './sha256-meter.ts';
import { isTempName } from './temp-files.ts';

/** Errors meaning "no blob here": missing, a parent is a file, a symlink (O_NOFOLLOW), a directory. */
const NO_BLOB = new Set(['ENOENT', 'ENOTDIR', 'ELOOP', 'EISDIR']);
/** copy() reads its source to check it: in large chunks (one buffer reused), the bytes are only hashed. */
const HASH_CHUNK_BYTES = 1024 * 1024;
/**
 * Hard links refused: another filesystem (EXDEV), a filesystem without links or a kernel with
 * protected_hardlinks (EPERM, ENOTSUP), or an inode at its link limit (EMLINK — ext4 stops at
 * 65,000, which one file kept unchanged across that many backups would reach).
 */
const LINK_REFUSED = new Set(['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP']);
// delete() prunes empty directories; one can vanish between our mkdir and our link.
const LINK_ATTEMPTS = 3;

/** Blobs as plain files at `<root>/<key>`, so any web server can serve the live ones directly. */
export class DiskBlobStorage implements BlobStorage {
  readonly kind = 'disk' as const;
  readonly #root: string;
  readonly #realRoot: string;

  constructor(root: string) {
    this.#root = path.resolve(root);
    mkdirSync(this.#root, { recursive: true });
    this.#realRoot = realpathSync(this.#root);
  }

  async put(key: string, body: Readable, options: PutOptions = {}): Promise<StoredBlob> {
    const target = await this.#pathOf(key);
    return writeAtomically(target, body, { maxBytes: options.maxBytes });
  }

  async get(key: string, range?: ByteRange, expected?: { size: number }): Promise<Readable | undefined> {
    const file = await this.#pathOf(key);
    if (range !== undefined) assertRangeShape(range);
    const handle = await openBlob(file);
    if (handle === undefined) return undefined;
    try {
      const { size } = await handle.stat();
      assertExpectedSize(size, expected);
      if (range !== undefined && range.start >= size) throw rangeBeyondEnd();
    } catch (error) {
      await handle.close();
      throw error;
    }
    // The stream reads the open inode: a put that renames over the key meanwhile does not mix in.
    return handle.createReadStream({ start: range?.start, end: range?.end });
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    return fileInfo(key, await this.#pathOf(key));
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    const directory = resolveInside(this.#root, prefix);
    await this.#assertInside(directory);
    for await (const file of walkFiles(directory, isKeySegment)) {
      const info = await fileInfo(`${prefix}/${file.segments.join('/')}`, file.path);
      if (info !== undefined) yield info;
    }
  }

  async delete(key: string): Promise<boolean> {
    const file = await this.#pathOf(key);
    try {
      await unlink(file);
    } catch (error) {
      if (NO_BLOB.has(errnoCode(error) ?? '')) return false;
      throw toStorageError(error);
    }
    await this.#pruneEmptyParents(path.dirname(file));
    return true;
  }

  /**
   * The new blob shares the source's inode: the source is read once to check it against
   * `expectedSha256` (no bytes are written) and hard-linked under the new key, which link(2)
   * refuses to overwrite. Safe because no blob is ever written in place: every put is a new inode
   * renamed into position. Where the file system refuses the link, a verified atomic copy does
   * the same job.
   */
  async copy(from: string, to: string, options: CopyOptions): Promise<StoredBlob> {
    const source = await this.#pathOf(from);
    const target = await this.#pathOf(to);
    const handle = await openBlob(source);
    if (handle === undefined) throw sourceNotFound();
    let verified: StoredBlob;
    try {
      verified = await sha256OfOpenFile(handle);
    } finally {
      await handle.close();
    }
    assertExpectedSha256('source', verified.sha256, options.expectedSha256);
    return linkInto(source, target, verified);
  }

  /**
   * Makes the new blob `key` hold the bytes of `file`, a file outside the root that nothing writes
   * any more (a completed resumable upload's, staging/disk-upload-staging.ts): hard-linked where
   * the filesystem allows, so no byte is copied, else copied. Its sha256 is `sha256` when the
   * caller knows it (it hashed the bytes as they came), otherwise read here, once.
   */
  async adoptFile(key: string, file: string, sha256?: string): Promise<StoredBlob> {
    const target = await this.#pathOf(key);
    const handle = await openBlob(file);
    if (handle === undefined) throw sourceNotFound();
    let adopted: StoredBlob;
    try {
      adopted = sha256 === undefined ? await sha256OfOpenFile(handle) : { size: (await handle.stat()).size, sha256 };
    } finally {
      await handle.close();
    }
    return linkInto(file, target, adopted);
  }

  /** The root is still there and writable (a volume unmounted or remounted read-only is not). */
  async ping(): Promise<void> {
    try {
      await access(this.#root, constants.W_OK);
    } catch (error) {
      throw new AppError('STORAGE_UNAVAILABLE', `The file storage directory cannot be written (${errnoCode(error) ?? 'unknown error'})`);
    }
  }

  /** Only at start-up: a put in flight in this or another process would lose its temp file. */
  async removeLeftovers(): Promise<number> {
    let removed = 0;
    for await (const file of walkFiles(this.#root, () => true)) {
      if (!isTempName(file.segments.at(-1) ?? '')) continue;
      await rm(file.path, { force: true });
      removed++;
    }
    return removed;
  }

  async close(): Promise<void> {}

  /**
   * The path of `key`, once its directory is known to lie inside the root. The segments are safe
   * (resolveInside), but a symbolic link planted on disk in place of a directory would still lead
   * elsewhere, and O_NOFOLLOW guards only the last component; so the directory, or its nearest
   * existing ancestor, is resolved for real and must stay under the real root.
   */
  async #pathOf(key: string): Promise<string> {
    const file = resolveInside(this.#root, key);
    await this.#assertInside(path.dirname(file));
    return file;
  }

  async #assertInside(directory: string): Promise<void> {
    for (let current = directory; ; current = path.dirname(current)) {
      let real: string;
      try {
        real = await realpath(current);
      } catch (error) {
        if (['ENOENT', 'ENOTDIR'].includes(errnoCode(error) ?? '') && current !== this.#root) continue;
        throw toStorageError(error);
      }
      if (real !== this.#realRoot && !real.startsWith(this.#realRoot + path.sep)) {
        throw new AppError('INVALID_PATH', 'the key leads outside the storage root through a symbolic link');
      }
      return;
    }
  }

  /** Best effort, and never the channel directory itself (the first level under root). */
  async #pruneEmptyParents(directory: string): Promise<void> {
    for (let current = directory; path.relative(this.#root, current).split(path.sep).length >= 2; current = path.dirname(current)) {
      try {
        await rmdir(current);
      } catch {
        return;
      }
    }
  }
}

/** Links `source` in as the new `target` (durably), or copies it where links are refused; `stored` is what it holds. */
async function linkInto(source: string, target: string, stored: StoredBlob): Promise<StoredBlob> {
  for (let attempt = 1; ; attempt++) {
    try {
      await makeDirectories(path.dirname(target));
      await hardLink(source, target);
      break;
    } catch (error) {
      const code = errnoCode(error) ?? '';
      if (code === 'EEXIST') throw targetExists();
      if (code === 'ENOENT' && !(await isRegularFile(source))) throw sourceNotFound();
      if (code === 'ENOENT' && attempt < LINK_ATTEMPTS) continue;
      if (LINK_REFUSED.has(code)) return copyInsteadOfLink(source, target, stored.sha256);
      throw toStorageError(error);
    }
  }
  await fsyncDirectory(path.dirname(target));
  return stored;
}

/**
 * Where hard links are refused: a full, verified, atomic copy that never lands on an existing
 * file, so the new blob still shares no inode that a later write could touch (none does anyway).
 */
export async function copyInsteadOfLink(source: string, target: string, expectedSha256?: string): Promise<StoredBlob> {
  return copyAtomically(source, target, { noReplace: true, expectedSha256 });
}

async function copyAtomically(source: string, target: string, options: AtomicWriteOptions): Promise<StoredBlob> {
  const handle = await openBlob(source);
  if (handle === undefined) throw sourceNotFound();
  const bytes = handle.createReadStream();
  try {
    return await writeAtomically(target, bytes, options);
  } finally {
    bytes.destroy();
  }
}

/**
 * Size and sha256 of an open file, read through two buffers no larger than the file: the next
 * chunk is read while this one is hashed. A read stream allocates a fresh chunk per read (256
 * for a 256 MiB restore, and a whole 1 MiB one for each 4 KiB restore), which kept the collector
 * busy for 40% of the time.
 */
async function sha256OfOpenFile(handle: FileHandle): Promise<StoredBlob> {
  const { size } = await handle.stat();
  const chunk = Math.max(1, Math.min(HASH_CHUNK_BYTES, size));
  const buffers: [Buffer, Buffer] = [Buffer.allocUnsafe(chunk), Buffer.allocUnsafe(chunk)];
  const meter = new Sha256Meter();
  let position = 0;
  const readInto = (buffer: Buffer) => handle.read(buffer, 0, buffer.length, position);
  let reading = readInto(buffers[0]);
  for (let turn = 0; ; turn = 1 - turn) {
    const { bytesRead, buffer } = await reading;
    if (bytesRead === 0) return meter.result();
    position += bytesRead;
    reading = readInto(turn === 0 ? buffers[1] : buffers[0]);
    meter.add(buffer.subarray(0, bytesRead));
  }
}

/** An open regular file, or undefined; O_NOFOLLOW keeps a planted symlink from leading outside root. */
async function openBlob(file: string): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if (NO_BLOB.has(errnoCode(error) ?? '')) return undefined;
    throw toStorageError(error);
  }
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  return undefined;
}

async function fileInfo(key: string, file: string): Promise<BlobInfo | undefined> {
  try {
    const info = await lstat(file);
    return info.isFile() ? { key, size: info.size, modifiedAt: Math.floor(info.mtimeMs) } : undefined;
  } catch (error) {
    if (NO_BLOB.has(errnoCode(error) ?? '')) return undefined;
    throw toStorageError(error);
  }
}

async function isRegularFile(file: string): Promise<boolean> {
  return (await fileInfo('', file)) !== undefined;
}

function isKeySegment(name: string): boolean {
  try {
    safeSegment(name, 'name');
    return true;
  } catch {
    return false;
  }
}
