import { randomBytes } from 'node:crypto';
import { type Dirent, constants as fsConstants } from 'node:fs';
import { type FileHandle, link, lstat, open, opendir, readdir, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { fsyncDirectory, makeDirectories } from '../../blobs/durable-directories.ts';
import { errnoCode } from '../../errors/errno-code.ts';
import {
  checkObjectName,
  checkObjectPrefix,
  OffsiteObjectMissing,
  type OffsiteTarget,
  type PutResult,
  sizedBody,
  type TargetObject,
} from './offsite-target.ts';

/** Starts with '.', which no object name may (checkObjectName), so list() can skip these safely. */
const TEMP_PREFIX = '.tmp-';
// remove() prunes folders left empty; one can vanish between our mkdir and our open.
const OPEN_ATTEMPTS = 3;

/**
 * Objects as files below a directory (file:///path), a name's '/' as folders. A write goes to a
 * temporary file beside its final name, is fsynced, and takes that name by link(), which (unlike
 * rename) fails rather than replace an existing file: a reader sees a whole object or none, and
 * nothing is ever overwritten, even by two writers of one name at once.
 */
export class DirectoryTarget implements OffsiteTarget {
  readonly description: string;
  private readonly root: string;

  /** root: an absolute path to a directory that exists (openOffsiteTarget checks it). */
  constructor(root: string) {
    this.root = path.resolve(root);
    this.description = pathToFileURL(this.root).href;
  }

  async putNew(name: string, body: Buffer | AsyncIterable<Uint8Array>, options: { size?: number } = {}): Promise<PutResult> {
    const target = this.pathOf(name);
    const folder = path.dirname(target);
    // An object already there: the body is not read at all, as S3's early HEAD spares the upload.
    if (await this.exists(target, name)) return { written: false };
    const { handle, tempPath } = await this.openTempIn(folder, name);
    let handleOpen = true;
    try {
      for await (const chunk of sizedBody(body, options.size)) await writeFully(handle, chunk);
      await handle.sync();
      handleOpen = false;
      await handle.close();
      let written = true;
      try {
        await link(tempPath, target);
      } catch (error) {
        if (errnoCode(error) !== 'EEXIST') throw error;
        written = false;
      }
      await unlink(tempPath);
      // The new entry (and the temp file's removal) survive a power cut only once the folder is fsynced.
      await fsyncDirectory(folder);
      return { written };
    } catch (error) {
      if (handleOpen) await handle.close().catch(() => undefined);
      await unlink(tempPath).catch(() => undefined);
      throw this.failure(`writing ${JSON.stringify(name)}`, error);
    }
  }

  async get(name: string): Promise<AsyncIterable<Uint8Array>> {
    const file = this.pathOf(name);
    let handle: FileHandle;
    try {
      // O_NOFOLLOW: objects are regular files; a symlink planted in the directory is not followed.
      handle = await open(file, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
    } catch (error) {
      if (isAbsence(error)) throw new OffsiteObjectMissing(this.description, name);
      throw this.failure(`reading ${JSON.stringify(name)}`, error);
    }
    try {
      // A folder opens too (the first segments of other names): it is no object.
      if (!(await handle.stat()).isFile()) throw new OffsiteObjectMissing(this.description, name);
    } catch (error) {
      await handle.close();
      throw error instanceof OffsiteObjectMissing ? error : this.failure(`reading ${JSON.stringify(name)}`, error);
    }
    // The open file keeps its bytes readable even if remove() unlinks it meanwhile.
    return handle.createReadStream();
  }

  async head(name: string): Promise<TargetObject | undefined> {
    const file = this.pathOf(name);
    try {
      const info = await lstat(file);
      return info.isFile() ? { name, size: info.size } : undefined;
    } catch (error) {
      if (isAbsence(error)) return undefined;
      throw this.failure(`reading ${JSON.stringify(name)}`, error);
    }
  }

  async *list(prefix: string): AsyncIterable<TargetObject> {
    checkObjectPrefix(prefix);
    // Walk from the deepest folder the prefix names whole; its last, partial segment filters that folder.
    const slash = prefix.lastIndexOf('/');
    const base = prefix.slice(0, slash + 1);
    const start = prefix.slice(slash + 1);
    yield* this.walk(base, start);
  }

  async remove(name: string): Promise<void> {
    const file = this.pathOf(name);
    try {
      await unlink(file);
    } catch (error) {
      if (isAbsence(error)) return;
      throw this.failure(`removing ${JSON.stringify(name)}`, error);
    }
    await this.pruneEmptyFolders(path.dirname(file));
  }

  async removeLeftovers(olderThanMs: number): Promise<number> {
    let removed = 0;
    const before = Date.now() - olderThanMs;
    for (const entry of await readdir(this.root, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.startsWith(TEMP_PREFIX)) continue;
      const file = path.join(entry.parentPath, entry.name);
      try {
        if ((await stat(file)).mtimeMs >= before) continue;
        await unlink(file);
        removed++;
      } catch (error) {
        // Finished (linked and removed) or removed by another instance meanwhile.
        if (!isAbsence(error)) throw this.failure(`removing the leftover ${entry.name}`, error);
      }
    }
    return removed;
  }

  async close(): Promise<void> {}

  /**
   * Folders in name order, each entry keyed as S3 orders keys: a folder as 'name/', compared
   * byte-wise in UTF-8. Every name below folder 'a' starts 'a/', and no sibling holds a '/', so
   * this per-folder order is exactly the order of the whole names, without holding them all.
   */
  private async *walk(relativeFolder: string, startsWith: string): AsyncIterable<TargetObject> {
    const folder = path.join(this.root, ...relativeFolder.split('/').filter((segment) => segment !== ''));
    let entries: Dirent[];
    try {
      entries = [];
      for await (const entry of await opendir(folder)) entries.push(entry);
    } catch (error) {
      // A prefix naming a folder that does not exist (yet) lists nothing, as on S3.
      if (isAbsence(error)) return;
      throw this.failure(`listing ${JSON.stringify(relativeFolder)}`, error);
    }
    const keyed = entries
      .filter((entry) => entry.name.startsWith(startsWith) && !entry.name.startsWith('.') && (entry.isFile() || entry.isDirectory()))
      .map((entry) => ({ entry, key: Buffer.from(entry.isDirectory() ? `${entry.name}/` : entry.name, 'utf8') }))
      .sort((a, b) => Buffer.compare(a.key, b.key));
    for (const { entry } of keyed) {
      const name = `${relativeFolder}${entry.name}`;
      if (entry.isDirectory()) {
        yield* this.walk(`${name}/`, '');
        continue;
      }
      try {
        yield { name, size: (await lstat(path.join(folder, entry.name))).size };
      } catch (error) {
        // Removed between the listing and the stat: it is gone, as a later listing would say.
        if (!isAbsence(error)) throw this.failure(`listing ${JSON.stringify(name)}`, error);
      }
    }
  }

  private pathOf(name: string): string {
    return path.join(this.root, ...checkObjectName(name).split('/'));
  }

  private async exists(file: string, name: string): Promise<boolean> {
    try {
      await lstat(file);
      return true;
    } catch (error) {
      if (isAbsence(error)) return false;
      throw this.failure(`writing ${JSON.stringify(name)}`, error);
    }
  }

  private async openTempIn(folder: string, name: string): Promise<{ handle: FileHandle; tempPath: string }> {
    for (let attempt = 1; ; attempt++) {
      const tempPath = path.join(folder, `${TEMP_PREFIX}${randomBytes(12).toString('hex')}`);
      try {
        await makeDirectories(folder);
        return { handle: await open(tempPath, 'wx'), tempPath };
      } catch (error) {
        if (errnoCode(error) !== 'ENOENT' || attempt >= OPEN_ATTEMPTS) throw this.failure(`writing ${JSON.stringify(name)}`, error);
      }
    }
  }

  /** Folders a generation's removal left empty go too, up to (not including) the root. */
  private async pruneEmptyFolders(folder: string): Promise<void> {
    for (let current = folder; current !== this.root && current.startsWith(this.root + path.sep); current = path.dirname(current)) {
      try {
        await rmdir(current);
      } catch {
        // ENOTEMPTY (other objects, or a write under way), or already gone: nothing more to prune.
        return;
      }
    }
  }

  private failure(action: string, error: unknown): Error {
    if (error instanceof OffsiteObjectMissing) return error;
    const code = errnoCode(error);
    const reason = code ?? (error instanceof Error ? error.message : String(error));
    return new Error(`${this.description}: ${action} failed: ${reason}`, { cause: error });
  }
}

async function writeFully(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

/** ENOENT, or ENOTDIR: a name below something that is a file, not a folder. */
function isAbsence(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Whether root exists and is a directory: a missing one is refused, not created (an unmounted disk). */
export async function isDirectory(root: string): Promise<boolean> {
  try {
    return (await stat(root)).isDirectory();
  } catch (error) {
    if (isAbsence(error)) return false;
    throw error;
  }
}
