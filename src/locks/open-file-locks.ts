import path from 'node:path';
import type { Logger } from '../logging/logger.ts';
import type { OpenedFileLocks } from './file-locks.ts';
import { LockFiles } from './lock-files.ts';

/** Where the lock files live under DATA_DIR when the metadata is SQLite. */
export const LOCK_FILES_DIR = 'locks';

/**
 * Per-file locks shared by every process that shares the metadata: advisory locks of the
 * PostgreSQL database (any number of instances and hosts), or lock files in DATA_DIR (one host).
 */
export async function openFileLocks(
  options: { dataDir: string; databaseUrl?: string | undefined },
  logger: Logger,
): Promise<OpenedFileLocks> {
  if (options.databaseUrl) {
    // Loaded only here: a SQLite deployment (and every CLI command on one) needs no PostgreSQL driver.
    const { PostgresLocks } = await import('./postgres-locks.ts');
    return new PostgresLocks(options.databaseUrl, logger);
  }
  return new LockFiles(path.join(options.dataDir, LOCK_FILES_DIR));
}
