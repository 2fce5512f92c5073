import { access, type FileHandle, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from '../errors/errno-code.ts';
import { assertExpectedSha256, targetExists } from './blob-errors.ts';
import type { PutOptions, StoredBlob } from './blob-storage.ts';
import { fsyncDirectory, makeDirectories } from './durable-directories.ts';
import { toStorageError } from './fs-errors.ts';
import { asBytes, Sha256Meter } from './sha256-meter.ts';
import { tempPathBeside } from './temp-files.ts';

export interface AtomicWriteOptions extends Pick<PutOptions, 'maxBytes'> {
  /** Refuse with INTEGRITY_FAILED, replacing nothing, when the written bytes hash differently. */
  expectedSha256?: string;
  /** Refuse when the target already exists (for the copy that stands in for a hard link). */
  noReplace?: boolean;
}

// delete() prunes empty directories; one can vanish between our mkdir and our open.
const OPEN_ATTEMPTS = 3;

/**
 * Writes `source` to `target` so that a reader, or a crash at any instant, sees the old bytes
 * or the new, never a mix: temp file in the same directory, fsync, rename, directory fsync.
 * fs.copyFile onto the target would instead rewrite its inode in place: killed mid-copy it left
 * a torn file 96 times in 100 here, and on ENOSPC it deleted the target.
 */
export async function writeAtomically(
  target: string,
  source: AsyncIterable<unknown>,
  options: AtomicWriteOptions = {},
): Promise<StoredBlob> {
  const directory = path.dirname(target);
  const { handle, tempPath } = await openTempBeside(target);
  let handleOpen = true;
  try {
    const written = await streamInto(handle, source, options.maxBytes);
    await handle.sync();
    handleOpen = false;
    await handle.close();
    assertExpectedSha256('copy', written.sha256, options.expectedSha256);
    // rename() has no no-replace flag in Node; the check leaves a window, acceptable for a fallback.
    if (options.noReplace && (await exists(target))) throw targetExists();
    await rename(tempPath, target);
    await fsyncDirectory(directory);
    return written;
  } catch (error) {
    if (handleOpen) await handle.close().catch(() => undefined);
    await rm(tempPath, { force: true }).catch(() => undefined);
    throw toStorageError(error);
  }
}

async function openTempBeside(target: string): Promise<{ handle: FileHandle; tempPath: string }> {
  for (let attempt = 1; ; attempt++) {
    const tempPath = tempPathBeside(target);
    try {
      await makeDirectories(path.dirname(target));
      return { handle: await open(tempPath, 'wx'), tempPath };
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT' || attempt >= OPEN_ATTEMPTS) throw toStorageError(error);
    }
  }
}

/** Hashes and counts while writing, so the body is never held in memory as a whole. */
async function streamInto(handle: FileHandle, source: AsyncIterable<unknown>, maxBytes: number | undefined): Promise<StoredBlob> {
  const meter = new Sha256Meter(maxBytes);
  // Leaving this loop early (throw) destroys a Readable source, which stops the upload.
  for await (const chunk of source) {
    const bytes = asBytes(chunk);
    meter.add(bytes);
    await writeFully(handle, bytes);
  }
  return meter.result();
}

async function writeFully(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    offset += bytesWritten;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
