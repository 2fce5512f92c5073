import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openMetadataStore } from '../../src/store/open-metadata-store.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { spawnService, waitUntilReady, type ServiceProcess } from '../helpers/service-process.ts';
import { createStorage, ENGINES, freePort } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

// Each kill costs a process start (~1–2 s here): the full 50 on SQLite, the default engine, and a
// shorter run on PostgreSQL, whose part of the story (record and journal) is the same code.
const KILLS: Record<string, number> = { sqlite: 50, postgres: 20 };
const FILE_BYTES = 2 * 1024 * 1024;
const WORKERS = 4;

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

for (const engine of ENGINES) {
  describe(`SIGKILL during restores (${engine})`, () => {
    test(`${KILLS[engine]} kills at random instants never leave a torn or missing file, and lose no version`, async (t) => {
      const storage = await createStorage(engine);
      t.after(() => storage.drop());
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      const env = {
        DATA_DIR: storage.dataDir,
        PORT: String(port),
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production', // no demo seed
        ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}),
      };
      const store = await openMetadataStore({ dataDir: storage.dataDir, databaseUrl: storage.databaseUrl });
      const fixture = await createTenantFixture(store, 'Crash');
      await store.close();

      let current: ServiceProcess | undefined;
      t.after(() => current?.child.kill('SIGKILL'));
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
      const live = path.join(storage.dataDir, 'storage', 'files', fixture.channel.id, 'data', 'big.bin');

      let restoresAnswered = 0;
      let killsMidFlight = 0;
      for (let kill = 0; kill < KILLS[engine]!; kill++) {
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
        const bytes = await readFile(live);
        assert.ok(allowed.has(sha256(bytes)), `after kill ${kill + 1} the live file is one of the backups, whole (size ${bytes.length})`);
      }

      // Back up again: every record must match its bytes, and nothing temporary remains.
      await start();
      assert.equal((await fetch(`${baseUrl}/readyz`)).status, 200);
      const leftovers = (await filesUnder(path.join(storage.dataDir, 'storage'))).filter((f) => path.basename(f).startsWith('.wa-tmp-'));
      assert.deepEqual(leftovers, []);
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
            const bytes = await readFile(path.join(storage.dataDir, 'storage', version.blobKey));
            assert.equal(sha256(bytes), version.sha256, `version ${version.id} holds the bytes recorded for it`);
            versions++;
          }
          cursor = page.next ?? undefined;
        } while (cursor);
        assert.deepEqual(await check.files.pendingWrites(), []);
        t.diagnostic(`${KILLS[engine]} SIGKILLs (${killsMidFlight} with restores in flight), ${restoresAnswered} restores answered, ${versions} versions verified`);
        assert.ok(killsMidFlight >= KILLS[engine]! / 2, 'most kills landed while restores were running');
      } finally {
        await check.close();
      }
    });
  });
}
