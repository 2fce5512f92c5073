import { loadConfig } from '../../src/config/config.ts';
import { openFileServices } from '../../src/files/file-services.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openMetadataStore } from '../../src/store/open-metadata-store.ts';

/**
 * The crash worker of scope restores (see crash-worker.ts for the harness): once told `go`, it
 * restores its scope — the folder SCOPE_FOLDER, or the whole channel without it — from each of the
 * backups SCOPE_BACKUPS (comma-separated) in turn, deleting what a backup lacks, until killed.
 * Settings: the service's environment variables, plus CRASH_CHANNEL_ID and CRASH_ADMIN_ID.
 */
const config = loadConfig(process.env);
const logger = createLogger('warn', process.stderr);
const store = await openMetadataStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
const services = await openFileServices(config, store.files, logger, { recover: true });
const channel = (await store.getChannel(process.env.CRASH_CHANNEL_ID!))!;
const actor = { adminId: process.env.CRASH_ADMIN_ID! };
const folder = process.env.SCOPE_FOLDER || undefined;
const backups = process.env.SCOPE_BACKUPS!.split(',');
process.stdout.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));

for (let i = 0; ; i++) {
  const backupTimestamp = backups[i % backups.length]!;
  await services.scopeRestores.restore(channel, actor, { folder, backupTimestamp, dryRun: false, delete: true });
}
