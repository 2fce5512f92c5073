import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isTempName } from '../../src/blobs/temp-files.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, nextSecond, sha256, storedBytes } from '../helpers/files.ts';
import { seedTenantFixture } from '../helpers/fixtures.ts';
import { type ServiceProcess, spawnService, waitUntilReady } from '../helpers/service-process.ts';
import { createStorage, freePort, type Storage, storageEnv } from '../helpers/test-service.ts';
import { testSize } from '../helpers/test-size.ts';
import { signIn } from '../helpers/wallets.ts';

// Each kill costs a process start of the service and a run until it (~1.5 s in all): 20 on SQLite,
// the default engine (the 200 kills of crash-mixed.test.ts hit restores too, below HTTP, and the 50 of
// crash-during-scope-restore.test.ts PostgreSQL and S3), and shorter runs on PostgreSQL, whose part
// of the story (record and journal) is the same code, and on S3, where a restore is one server-side copy.
// Those are the full sizes (`npm run soak`); `npm test` runs 40% of them, still asserting that at
// least half of the kills land with restores in flight.
const KILLS: Record<string, number> = testSize(
  { sqlite: 8, postgres: 5, 'postgres+s3': 4 },
  { sqlite: 20, postgres: 12, 'postgres+s3': 8 },
);
const FILE_BYTES = 2 * 1024 * 1024;
const WORKERS = 4;

/** Temporary files or objects of interrupted writes, wherever the setup keeps its bytes. */
async function leftoversOf(storage: Storage): Promise<string[]> {
  const names = storage.s3
    ? await storage.s3.keys()
    : (await readdir(path.join(storage.dataDir, 'storage'), { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile())
        .map((e) => path.join(e.parentPath, e.name));
  return names.filter((name) => isTempName(name.split(/[/\\]/).at(-1)!));
}

for (const setup of FILE_SETUPS) {
  describe(`SIGKILL during restores (${setup})`, () => {
    test(`${KILLS[setup]} kills at random instants never leave a torn or missing file, and lose no version`, async (t) => {
      const storage = await createStorage(setup);
      t.after(() => storage.drop());
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const env = { ...storageEnv(storage), PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'production' }; // production: no demo seed
      const config = loadConfig(env);
      const fixture = await seedTenantFixture(storage, 'Crash');

      let current: ServiceProcess | undefined;
      t.after(() => current?.stop());
      const start = async () => {
        current = spawnService(env);
        await waitUntilReady(current, baseUrl);
        return current;
      };

      await start();
      const client = new FilesClient(baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, `127.0.0.1:${port}`)) });
      const contents = [randomBytes(FILE_BYTES), randomBytes(FILE_BYTES)];
      const timestamps: string[] = [];
      for (const bytes of contents) {
        assert.ok([200, 201].includes((await client.put('data', 'big.bin', bytes)).status));
        await nextSecond();
        const backup = await client.backup();
        assert.equal(backup.status, 201, backup.body);
        timestamps.push(backup.json().timestamp);
      }
      const allowed = new Set(contents.map((c) => sha256(c)));
      // Read beside the killed service, before any restart could repair anything.
      const records = await openMetadataStore({ dataDir: storage.dataDir, databaseUrl: storage.databaseUrl });
      t.after(() => records.close());

      let restoresAnswered = 0;
      let killsMidFlight = 0;
      for (let kill = 0; kill < KILLS[setup]!; kill++) {
        if (kill > 0) await start();
        let stop = false;
        let inFlight = 0;
        const worker = async (w: number) => {
          for (let i = w; !stop; i++) {
            inFlight++;
            try {
              const response = await client.restore('data', 'big.bin', `?backupTimestamp=${timestamps[i % 2]}`);
              if (response.status === 200) restoresAnswered++;
              else assert.fail(`restore answered ${response.status}: ${response.body}`);
            } catch (error) {
              if (!stop) throw error; // a reset connection is expected only once the process is killed
            } finally {
              inFlight--;
            }
          }
        };
        const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
        await sleep(randomInt(5, 400));
        if (inFlight > 0) killsMidFlight++;
        stop = true;
        current!.child.kill('SIGKILL');
        await current!.exited;
        await Promise.all(workers);
        await storage.s3?.idle();
        const record = await records.files.getFile(fixture.channel.id, 'data', 'big.bin');
        const bytes = (record && (await storedBytes(config, record.blobKey))) ?? Buffer.alloc(0);
        assert.ok(allowed.has(sha256(bytes)), `after kill ${kill + 1} the live file is one of the backups, whole (size ${bytes.length})`);
        assert.equal(sha256(bytes), record!.sha256, `after kill ${kill + 1}, before any restart, the record describes the bytes it names`);
      }

      // Back up again: every record must match its bytes, and nothing temporary remains.
      await start();
      assert.equal((await fetch(`${baseUrl}/readyz`)).status, 200);
      assert.deepEqual(await leftoversOf(storage), []);
      const download = await client.get('data', 'big.bin');
      assert.equal(download.status, 200);
      assert.ok(allowed.has(sha256(download.bytes)));
      assert.equal(download.headers.etag, `"${sha256(download.bytes)}"`, 'the record matches the live bytes');

      const check = await openMetadataStore({ dataDir: storage.dataDir, databaseUrl: storage.databaseUrl });
      try {
        let versions = 0;
        let cursor: string | undefined;
        do {
          const page = await check.files.listVersions(fixture.channel.id, 'data', 'big.bin', { limit: 1000, cursor });
          for (const version of page.items) {
            const live = await check.files.getFile(fixture.channel.id, 'data', 'big.bin');
            const bytes = await storedBytes(config, version.blobKey ?? live!.blobKey);
            assert.equal(bytes && sha256(bytes), version.sha256, `version ${version.id} holds the bytes recorded for it`);
            versions++;
          }
          cursor = page.next ?? undefined;
        } while (cursor);
        assert.deepEqual(await check.files.pendingWrites(), []);
        t.diagnostic(
          `${KILLS[setup]} SIGKILLs (${killsMidFlight} with restores in flight), ${restoresAnswered} restores answered, ${versions} versions verified`,
        );
        assert.ok(killsMidFlight >= KILLS[setup]! / 2, 'most kills landed while restores were running');
      } finally {
        await check.close();
      }
    });
  });
}
