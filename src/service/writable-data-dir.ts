import { constants } from 'node:fs';
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { getSystemErrorMap } from 'node:util';
import { DISK_STORAGE_DIR } from '../blobs/open-blob-storage.ts';
import { TEMP_PREFIX } from '../blobs/temp-files.ts';
import type { Config } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import { errnoCode } from '../errors/errno-code.ts';
import { LOCK_FILES_DIR } from '../locks/open-file-locks.ts';
import { SQLITE_FILE_NAME } from '../metadata/open-metadata-store.ts';

type DataDirConfig = Pick<Config, 'dataDir' | 'databaseUrl'> & { storage: Pick<Config['storage'], 'kind'> };

/**
 * Stops start-up, naming the path and the cause, when the service could not write what it keeps
 * under DATA_DIR: the SQLite metadata (and the journal SQLite creates beside it), the files of
 * STORAGE=disk, the lock files. Otherwise a read-only DATA_DIR would start, say it listens, and
 * fail every write. The check writes for real, since permission bits say nothing to root and
 * nothing of a read-only mount: a file is created and removed in each directory, and the existing
 * database files are opened for writing (not written).
 */
export async function assertDataDirWritable(config: DataDirConfig): Promise<void> {
  const sqlite = config.databaseUrl === undefined;
  if (sqlite) {
    await probeDirectory(config.dataDir, config.dataDir);
    for (const suffix of ['', '-wal', '-shm']) await probeFile(path.join(config.dataDir, `${SQLITE_FILE_NAME}${suffix}`), config.dataDir);
    await probeDirectory(path.join(config.dataDir, LOCK_FILES_DIR), config.dataDir);
  }
  if (config.storage.kind === 'disk') {
    const root = path.join(config.dataDir, DISK_STORAGE_DIR);
    await probeDirectory(root, config.dataDir);
    for (const directory of await subdirectories(root, config.dataDir)) await probeDirectory(directory, config.dataDir);
  }
}

/** The directories directly under the storage root (files/, versions/…), which every write goes through. */
async function subdirectories(root: string, dataDir: string): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory()).map((entry) => path.join(root, entry.name));
  } catch (error) {
    throw notWritable(dataDir, `cannot list ${root}`, error);
  }
}

async function probeDirectory(directory: string, dataDir: string): Promise<void> {
  try {
    await mkdir(directory, { recursive: true });
  } catch (error) {
    throw notWritable(dataDir, `cannot create ${directory}`, error);
  }
  // A temporary name: were the process killed right here, the storage's start-up clean-up removes it.
  const probe = path.join(directory, `${TEMP_PREFIX}write-probe-${process.pid}`);
  try {
    const handle = await open(probe, 'w');
    try {
      await handle.write('probe');
    } finally {
      await handle.close();
    }
    await rm(probe);
  } catch (error) {
    await rm(probe, { force: true }).catch(() => undefined);
    throw notWritable(dataDir, `cannot write a file in ${directory}`, error);
  }
}

async function probeFile(file: string, dataDir: string): Promise<void> {
  try {
    await (await open(file, constants.O_RDWR)).close();
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return; // created later, in a directory known to be writable
    throw notWritable(dataDir, `cannot open ${file} for writing`, error);
  }
}

function notWritable(dataDir: string, what: string, error: unknown): Error {
  const code = errnoCode(error);
  if (code === undefined) return error instanceof Error ? error : new Error(String(error));
  const errno = (error as { errno?: unknown }).errno;
  const meaning = typeof errno === 'number' ? getSystemErrorMap().get(errno)?.[1] : undefined;
  return new AppError(
    'STORAGE_UNAVAILABLE',
    `DATA_DIR ${dataDir} is not writable (${code}${meaning ? `: ${meaning}` : ''}): ${what}. ` +
      'The service keeps its data there; give its user write access, or mount it read-write.',
    undefined,
    { cause: error },
  );
}
