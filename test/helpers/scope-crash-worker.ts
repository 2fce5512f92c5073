import { loadConfig } from '../../src/config/config.ts';
import { openFileServices } from '../../src/files/file-services.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { FileCatalog } from '../../src/model/metadata-store.ts';

/**
 * The crash worker of scope restores (see crash-worker.ts for the harness): once told `go`, it
 * restores its scope — the folder SCOPE_FOLDER, or the whole channel without it — from each of the
 * backups SCOPE_BACKUPS (comma-separated) in turn, deleting what a backup lacks, until killed.
 * Told `go N S`, it starts with backup number S (from 0) instead, and kills itself (SIGKILL) as
 * soon as the Nth file it restores or deletes is committed (its record updated), the other
 * files in flight wherever they are: so that a kill lands inside a restore's plan however fast
 * files go (on disk a file takes less time than another process needs to react to a report of it).
 * Settings: the service's environment variables, plus CRASH_CHANNEL_ID and CRASH_ADMIN_ID.
 */
const config = loadConfig(process.env);
const logger = createLogger('warn', process.stderr);
const store = await openMetadataStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
let killAfter = 0;
let ended = 0;
// Counted from `go` only: nothing is committed before it.
const committed = () => {
  if (killAfter > 0 && ++ended === killAfter) process.kill(process.pid, 'SIGKILL');
};
const catalog: FileCatalog = {
  ...store.files,
  async commitWrite(commit) {
    const done = await store.files.commitWrite(commit);
    committed();
    return done;
  },
  async commitDelete(commit) {
    const done = await store.files.commitDelete(commit);
    committed();
    return done;
  },
};
const services = await openFileServices(config, catalog, logger, { recover: true });
const channel = (await store.getChannel(process.env.CRASH_CHANNEL_ID!))!;
const actor = { adminId: process.env.CRASH_ADMIN_ID! };
const folder = process.env.SCOPE_FOLDER || undefined;
const backups = process.env.SCOPE_BACKUPS!.split(',');
process.stdout.write('ready\n');
const go = await new Promise<string>((resolve) => process.stdin.once('data', (line: Buffer) => resolve(line.toString())));
const [after = 0, start = 0] = go.trim().split(' ').slice(1).map(Number);
killAfter = after;

for (let i = start; ; i++) {
  const backupTimestamp = backups[i % backups.length]!;
  await services.scopeRestores.restore(channel, actor, { folder, backupTimestamp, dryRun: false, delete: true });
}
