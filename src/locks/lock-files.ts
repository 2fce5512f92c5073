import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../errors/app-error.ts';
import { errnoCode } from '../errors/errno-code.ts';
import type { OpenedFileLocks } from './file-locks.ts';
import { KeyedMutex } from './keyed-mutex.ts';

const RETRY_MS = 5;
const WAIT_LIMIT_MS = 60_000;
const UNWRITTEN_STALE_MS = 5_000;

/**
 * Per-key locks that hold across the processes sharing one DATA_DIR (the server and the CLI):
 * the in-process queue first, then a lock file created exclusively (O_EXCL) holding the owner's
 * pid. A process killed while holding one leaves it behind; a lock whose pid no longer runs is
 * taken over. Processes on other machines need a lock of the shared database instead.
 */
export class LockFiles implements OpenedFileLocks {
  private readonly inProcess = new KeyedMutex();

  constructor(private readonly directory: string) {
    mkdirSync(directory, { recursive: true });
  }

  runExclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.inProcess.runExclusive(key, async () => {
      const file = path.join(this.directory, createHash('sha256').update(key).digest('hex').slice(0, 40));
      await this.acquire(file);
      try {
        return await work();
      } finally {
        await unlink(file).catch(() => undefined);
      }
    });
  }

  async close(): Promise<void> {}

  private async acquire(file: string): Promise<void> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    for (;;) {
      const handle = await open(file, 'wx').catch((error: unknown) => {
        if (errnoCode(error) === 'EEXIST') return undefined;
        throw lockFileError(error);
      });
      if (handle) {
        try {
          await handle.writeFile(String(process.pid));
          await handle.close();
          return;
        } catch (error) {
          // A lock without its owner's pid would pass for stale in a few seconds while still held:
          // it is given up instead, and the operation refused before it changed anything.
          await handle.close().catch(() => undefined);
          await unlink(file).catch(() => undefined);
          throw lockFileError(error);
        }
      }
      if (await this.isStale(file)) {
        await unlink(file).catch(() => undefined);
        continue;
      }
      if (Date.now() > deadline)
        throw new AppError('SERVICE_UNAVAILABLE', 'Another process has held this file for a minute; try again later');
      await sleep(RETRY_MS);
    }
  }

  /**
   * Left behind by a process that no longer runs. Our own pid counts as gone too: this process
   * never waits for itself (the in-process queue comes first), so such a file is from an earlier
   * process that had the same pid, as a container's pid 1 does on every start. A file without a
   * pid (a crash between create and write) is stale once it is a few seconds old.
   */
  private async isStale(file: string): Promise<boolean> {
    let owner: number;
    let ageMs: number;
    try {
      owner = Number((await readFile(file, 'utf8')).trim());
      ageMs = Date.now() - (await stat(file)).mtimeMs;
    } catch {
      return false; // released meanwhile: the next attempt will take it
    }
    if (!Number.isSafeInteger(owner) || owner <= 0) return ageMs > UNWRITTEN_STALE_MS;
    if (owner === process.pid) return true;
    try {
      process.kill(owner, 0);
      return false;
    } catch (error) {
      return errnoCode(error) === 'ESRCH';
    }
  }
}

/**
 * A full disk refuses the operation (507), and a lock directory that cannot be written (read-only,
 * permission denied) 503, as any write on that storage would; other failures pass unchanged.
 */
function lockFileError(error: unknown): unknown {
  const code = errnoCode(error);
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return new AppError('INSUFFICIENT_STORAGE', 'the storage is full: the file could not be locked; nothing was changed', undefined, {
      cause: error,
    });
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'EIO') {
    return new AppError('STORAGE_UNAVAILABLE', `the file could not be locked (${code}); nothing was changed`, undefined, { cause: error });
  }
  return error;
}
