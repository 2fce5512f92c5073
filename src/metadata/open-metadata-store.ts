import path from 'node:path';
import type { Logger } from '../logging/logger.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import { openDatabase, SQLITE_FILE_NAME } from './database.ts';
import { metadataStore } from './metadata-store.ts';
import { migrateToLatest } from './migrate.ts';
import { refreshChangeCapture } from './offsite/change-capture.ts';

/** The SQLite file's name in DATA_DIR, for checks made before the store opens (writable-data-dir.ts). */
export { SQLITE_FILE_NAME } from './database.ts';

export interface StoreOptions {
  /** postgres://… selects PostgreSQL; without it metadata lives in `<dataDir>/metadata.sqlite`. */
  databaseUrl?: string;
  dataDir: string;
  logger?: Logger;
}

// The CLI opens a store without a logger; a lost PostgreSQL connection still deserves a line.
const stderrLogger: Logger = {
  warn: (obj, msg) => console.warn(msg, obj),
  error: (obj, msg) => console.error(msg, obj),
};

/** Opens the store and brings its schema up to date, so a fresh dataDir or database just works. */
export async function openMetadataStore(options: StoreOptions): Promise<MetadataStore> {
  const { db, engine } = await openDatabase({
    databaseUrl: options.databaseUrl,
    dataDir: options.dataDir,
    logger: options.logger ?? stderrLogger,
  });
  try {
    // A migration may add a column: the off-site capture's triggers, where they exist, name it too.
    if ((await migrateToLatest(db, engine)).length > 0) await refreshChangeCapture(db, engine);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return metadataStore(db, engine, Date.now, engine === 'sqlite' ? path.join(options.dataDir, SQLITE_FILE_NAME) : undefined);
}
