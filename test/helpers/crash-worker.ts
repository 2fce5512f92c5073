import { randomBytes, randomInt } from 'node:crypto';
import { Readable } from 'node:stream';
import { loadConfig } from '../../src/config/config.ts';
import { isAppError } from '../../src/errors/app-error.ts';
import { openFileServices } from '../../src/files/file-services.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { CRASH_FILES, CRASH_FOLDER } from './crash-layout.ts';

/**
 * A process that writes files the way the server does — the same recovery at start, the same file,
 * backup and restore services, the same storage and catalog — without HTTP, authentication or viem,
 * so that it starts in a fraction of the server's time and can be killed hundreds of times. It
 * prints `ready` once recovered, waits for a line on standard input, then uploads, backs up and
 * restores (and now and then deletes) at random until killed.
 * Settings: the service's environment variables, plus CRASH_CHANNEL_ID and CRASH_ADMIN_ID.
 */
const config = loadConfig(process.env);
const logger = createLogger('warn', process.stderr);
const store = await openMetadataStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
const services = await openFileServices(config, store.files, logger, { recover: true });
const channel = (await store.getChannel(process.env.CRASH_CHANNEL_ID!))!;
const actor = { adminId: process.env.CRASH_ADMIN_ID! };
process.stdout.write('ready\n');
// The test looks at the recovered state first and says `go` on standard input.
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));

/** Refusals the random operations run into by design (a backup in an occupied second, a file not in that backup). */
const expected = new Set(['BACKUP_EXISTS', 'BACKUP_FILE_NOT_FOUND', 'BACKUP_NOT_FOUND', 'FILE_NOT_FOUND']);

async function upload(filename: string): Promise<void> {
  // Up to 256 KiB in chunks, so that a kill can fall in the middle of the stream.
  const chunks = Array.from({ length: randomInt(1, 5) }, () => randomBytes(randomInt(1, 64 * 1024)));
  await services.files.put(channel, actor, { folder: CRASH_FOLDER, filename }, Readable.from(chunks), 'application/octet-stream');
}

async function restore(filename: string): Promise<void> {
  const backups = (await store.files.listBackups(channel.id, { limit: 20 })).items;
  const backup = backups[randomInt(0, Math.max(backups.length, 1))];
  await services.restores.restore(channel, actor, { folder: CRASH_FOLDER, filename }, { backupTimestamp: backup?.timestamp });
}

// Three loops at once, as concurrent requests would run.
await Promise.all(
  [0, 1, 2].map(async () => {
    for (;;) {
      const filename = CRASH_FILES[randomInt(0, CRASH_FILES.length)]!;
      const choice = randomInt(0, 11);
      try {
        if (choice < 5) await upload(filename);
        else if (choice < 7) await services.backups.create(channel, actor, 'api');
        else if (choice < 10) await restore(filename);
        else await services.files.delete(channel, actor, { folder: CRASH_FOLDER, filename });
      } catch (error) {
        if (!isAppError(error) || !expected.has(error.code)) throw error;
      }
    }
  }),
);
