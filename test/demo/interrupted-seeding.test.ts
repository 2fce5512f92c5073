import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_STEPS, seedDemo } from '../../src/demo/demo-seed.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { ENGINES } from '../helpers/backends.ts';
import { bundleForSpawn } from '../helpers/bundle.ts';
import { type DemoState, demoState } from '../helpers/demo-state.ts';
import { request } from '../helpers/http.ts';
import { spawnService, waitForOutput } from '../helpers/service-process.ts';
import { createStorage, freePort, type Storage, startTestService, storageEnv } from '../helpers/test-service.ts';
import { testSize } from '../helpers/test-size.ts';

const WORKER = new URL('../helpers/demo-seed-crash-worker.ts', import.meta.url);
const CURL = /curl -sS '([^']+)' \\(\n\s+-H '[^']+'( \\)?)+/;
// Every step on SQLite, the first start's default; some on PostgreSQL, whose part is the same code.
// Every step on SQLite; on PostgreSQL, whose commits the in-process suite (demo-seed.unit.test.ts)
// interrupts at every step too, one kill in npm test and five in the soak (20 s of the suite).
const STEPS_KILLED: Record<string, number[]> = {
  sqlite: DEMO_STEPS.map((_, i) => i + 1),
  postgres: testSize([6], [1, 4, 6, 8, 9]),
};

/** Pulls the -H 'Name: value' pairs out of the printed curl command, as a shell would. */
function curlHeaders(curl: string): Record<string, string> {
  return Object.fromEntries([...curl.matchAll(/-H '([^:]+): ([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
}

/** Runs the crash worker until it kills itself after `step`. */
async function seedUntilKilled(env: Record<string, string>, step: number): Promise<void> {
  const child = spawn(process.execPath, [await bundleForSpawn(WORKER)], {
    env: { PATH: process.env.PATH, ...env, DEMO_CRASH_AFTER_STEP: String(step) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  assert.equal(signal, 'SIGKILL', stderr);
}

/** The next start, `wallet-admin serve` as a user runs it: it prints the welcome, whose curl answers 200, and exits cleanly. */
async function nextStartWelcomes(env: Record<string, string>, headline: RegExp): Promise<string> {
  const served = spawnService({ ...env, LOG_LEVEL: 'warn' });
  try {
    const [curl, url] = await waitForOutput(served, CURL);
    assert.match(served.output(), headline);
    assert.match(served.output(), /Or open the admin console at http:\/\/127\.0\.0\.1:\d+\/console\//);
    const answer = await request(url!, url!, { headers: curlHeaders(curl) });
    assert.equal(answer.status, 200, answer.body);
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0);
    return served.output();
  } finally {
    await served.stop();
  }
}

/** What the store holds once the start ended, read in this process. */
async function stateOf(storage: Storage, engine: 'sqlite' | 'postgres'): Promise<DemoState> {
  const svc = await startTestService(engine, { storage });
  try {
    return await demoState(svc);
  } finally {
    await svc.close();
  }
}

for (const engine of ENGINES) {
  describe(`a first start stopped for good while it seeds the demo (${engine})`, () => {
    let expected: DemoState;
    before(async () => {
      const svc = await startTestService(engine);
      try {
        await seedDemo(svc.service.store, svc.service.files);
        expected = await demoState(svc);
      } finally {
        await svc.close();
      }
    });

    for (const step of STEPS_KILLED[engine]!) {
      test(`SIGKILL after step ${step} (${DEMO_STEPS[step - 1]}): the next start completes the demo exactly and prints the welcome`, async (t) => {
        const storage = await createStorage(engine);
        t.after(() => storage.drop());
        const env = { ...storageEnv(storage), PORT: String(await freePort()) };
        await seedUntilKilled(env, step);
        const output = await nextStartWelcomes(env, /First start, completed: an earlier start began the demo data and stopped midway/);
        assert.match(output, /Channel "demo" holds example files, one backup and a changed welcome\/prices\.csv to restore/);
        assert.deepEqual(await stateOf(storage, engine), expected, 'the demo an uninterrupted first start makes');
      });
    }

    test('Ctrl-C while the first start seeds: the next start completes the demo and prints the welcome', async (t) => {
      const storage = await createStorage(engine);
      t.after(() => storage.drop());
      const env = { ...storageEnv(storage), PORT: String(await freePort()), LOG_LEVEL: 'warn' };
      const first = spawnService(env);
      t.after(() => first.stop());
      // Watched from here once the start has made its storage (and so its database): Ctrl-C as soon as
      // the seeding has begun, as a user would half a second in.
      const running = () => first.child.exitCode === null && first.child.signalCode === null;
      while (!existsSync(path.join(storage.dataDir, 'storage')) && running()) await sleep(5);
      const watcher = await openMetadataStore({ dataDir: storage.dataDir, databaseUrl: storage.databaseUrl });
      t.after(() => watcher.close());
      while ((await watcher.demoSeeding()) === 'none' && running()) await sleep(2);
      first.child.kill('SIGINT');
      await first.exited;
      // Almost always still seeding then: the signal ended it (no handler yet). Should the seeding have
      // just finished, the service shut down on it, and the next start is a later one.
      const stoppedMidway = (await watcher.demoSeeding()) === 'begun';
      assert.equal(first.child.signalCode === 'SIGINT', stoppedMidway, first.output());
      const headline = stoppedMidway
        ? /First start, completed: an earlier start began the demo data and stopped midway/
        : /Demo: owner admin adm_\w+ of tenant t_\w+ holds\nthe published development wallet/;
      await nextStartWelcomes(env, headline);
      assert.deepEqual(await stateOf(storage, engine), expected);
    });
  });
}
