import { loadConfig } from '../../src/config/config.ts';
import { DEMO_STEPS, seedDemo } from '../../src/demo/demo-seed.ts';
import { openFileServices } from '../../src/files/file-services.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';

/**
 * A first start's demo seeding that kills itself (SIGKILL) once step DEMO_CRASH_AFTER_STEP (1 to
 * DEMO_STEPS.length) is done: a start stopped there for good, as a crash, a power loss or a second
 * Ctrl-C stops it, with nothing of it closed or flushed. The same store, recovery and file services
 * as the server, without HTTP (test/demo/interrupted-seeding.test.ts starts the real one next).
 * Settings: the service's environment variables, plus DEMO_CRASH_AFTER_STEP.
 */
const config = loadConfig(process.env);
const store = await openMetadataStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
const services = await openFileServices(config, store.files, createLogger('warn', process.stderr), { recover: true });
const killedAfter = DEMO_STEPS[Number(process.env.DEMO_CRASH_AFTER_STEP) - 1];
if (killedAfter === undefined) throw new Error(`DEMO_CRASH_AFTER_STEP must be 1 to ${DEMO_STEPS.length}`);
await seedDemo(store, services, (done) => {
  if (done !== killedAfter) return;
  process.kill(process.pid, 'SIGKILL');
  // Nothing more happens while the signal lands.
  return new Promise<void>(() => {});
});
throw new Error(`the seeding ended without reaching "${killedAfter}"`);
