import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isTempName } from '../../src/blobs/temp-files.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { bundleForSpawn } from '../helpers/bundle.ts';
import { CRASH_FILES, CRASH_FOLDER } from '../helpers/crash-layout.ts';
import { startCrashWorker } from '../helpers/crash-process.ts';
import { sha256, storedBytes, storedKeys } from '../helpers/files.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { spawnService, waitUntilReady } from '../helpers/service-process.ts';
import { createStorage, freePort } from '../helpers/test-service.ts';
import { testSize } from '../helpers/test-size.ts';

// 60 in `npm test` (30 a lane, each lane's workers still do work between kills: checked below), the
// full 200 under `npm run soak` (WALLET_ADMIN_TEST_SIZE=full, test/helpers/test-size.ts).
const KILLS = testSize(60, 200);
const LANES = 2;
const WORKER = new URL('../helpers/crash-worker.ts', import.meta.url);

async function tempFiles(dataDir: string): Promise<string[]> {
  const entries = await readdir(path.join(dataDir, 'storage'), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile() && isTempName(e.name)).map((e) => e.name);
}

/** What one lane of kills saw and verified. */
interface LaneReport {
  versions: number;
  backups: number;
  versionsChecked: number;
}

/**
 * One worker on its own channel and DATA_DIR, killed `kills` times; after every restart the state it
 * recovered is checked, and at the end the service itself starts on that DATA_DIR and is ready.
 */
async function runLane(t: TestContext, bundle: string, kills: number, lane: number): Promise<LaneReport> {
  const storage = await createStorage('sqlite');
  t.after(() => storage.drop());
  const store = await openMetadataStore({ dataDir: storage.dataDir });
  t.after(() => store.close());
  const fixture = await createTenantFixture(store, `Crash${lane}`);
  const env = {
    DATA_DIR: storage.dataDir,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    CRASH_CHANNEL_ID: fixture.channel.id,
    CRASH_ADMIN_ID: fixture.owner.id,
  };
  const config = loadConfig(env);
  const channel = fixture.channel.id;

  /** Every version seen so far, by id, with the sha256 its bytes had then. */
  const known = new Map<string, string>();
  let versionsChecked = 0;

  /**
   * What a restart must have left: no temporary file, no unsettled write, every live file's bytes
   * as its record says (nothing torn), every version seen before still there with its bytes
   * (nothing lost) — new versions are hashed once, known ones compared by record (`full` rehashes
   * all) — and no stored bytes that neither a record nor a version names (nothing stranded).
   */
  async function checkRecoveredState(full: boolean, when: string): Promise<void> {
    assert.deepEqual(await tempFiles(storage.dataDir), [], `${when}: temporary files left`);
    assert.deepEqual(await store.files.pendingWrites(), [], `${when}: unsettled writes`);
    const seen = new Set<string>();
    const named = new Set<string>();
    for (const filename of CRASH_FILES) {
      const record = await store.files.getFile(channel, CRASH_FOLDER, filename);
      if (record !== undefined) {
        named.add(record.blobKey);
        const bytes = await storedBytes(config, record.blobKey);
        assert.ok(bytes, `${when}: ${filename} has a record but no bytes`);
        assert.equal(sha256(bytes), record.sha256, `${when}: ${filename} is torn (its bytes are not those recorded)`);
        assert.equal(bytes.length, record.size);
      }
      let cursor: string | undefined;
      do {
        const page = await store.files.listVersions(channel, CRASH_FOLDER, filename, { limit: 500, cursor });
        for (const version of page.items) {
          seen.add(version.id);
          if (version.blobKey !== null) named.add(version.blobKey);
          const before = known.get(version.id);
          if (before !== undefined) assert.equal(version.sha256, before, `${when}: version ${version.id} changed its record`);
          if (before === undefined || full) {
            const kept = await storedBytes(config, version.blobKey ?? record!.blobKey);
            assert.ok(kept, `${when}: version ${version.id} of ${filename} lost its bytes`);
            assert.equal(sha256(kept), version.sha256, `${when}: version ${version.id} of ${filename} holds other bytes`);
            known.set(version.id, version.sha256);
            versionsChecked++;
          }
        }
        cursor = page.next ?? undefined;
      } while (cursor);
    }
    for (const [id] of known) assert.ok(seen.has(id), `${when}: version ${id} was lost`);
    const stranded = (await storedKeys(config, `objects/${channel}`)).filter((key) => !named.has(key));
    assert.deepEqual(stranded, [], `${when}: stored bytes that no record or version names`);
  }

  for (let kill = 1; kill <= kills; kill++) {
    const worker = await startCrashWorker(bundle, env);
    await checkRecoveredState(false, `lane ${lane}, after restart ${kill}`);
    worker.go();
    await sleep(randomInt(5, 250));
    await worker.kill();
  }

  // The last restart recovers; then everything is checked byte by byte, and the service starts on it.
  const worker = await startCrashWorker(bundle, env);
  await checkRecoveredState(true, `lane ${lane}, after the last restart`);
  await worker.kill();
  const backups = (await store.files.listBackups(channel, { limit: 1000 })).items.length;
  const port = await freePort();
  const service = spawnService({ ...env, PORT: String(port) });
  t.after(() => service.stop());
  await waitUntilReady(service, `http://127.0.0.1:${port}`);
  assert.equal((await fetch(`http://127.0.0.1:${port}/readyz`)).status, 200);
  assert.ok(known.size > kills, `lane ${lane}: the workers did work between kills (${known.size} versions)`);
  return { versions: known.size, backups, versionsChecked };
}

test(`${KILLS} SIGKILLs at random instants during uploads, backups and restores: no torn file, no lost version, no leftover after restart`, async (t) => {
  const bundle = await bundleForSpawn(WORKER);
  const started = Date.now();
  // Two lanes at once, one per core: a kill's cost is mostly the next process start.
  const reports = await Promise.all(Array.from({ length: LANES }, (_, lane) => runLane(t, bundle, KILLS / LANES, lane)));
  const sum = (key: keyof LaneReport) => reports.reduce((total, report) => total + report[key], 0);
  t.diagnostic(
    `${KILLS} SIGKILLs during uploads, backups and restores (${LANES} lanes) in ${Math.round((Date.now() - started) / 1000)} s: ${sum('versions')} versions and ${sum('backups')} backups verified, ${sum('versionsChecked')} version checks, 0 torn files, 0 leftovers`,
  );
});
