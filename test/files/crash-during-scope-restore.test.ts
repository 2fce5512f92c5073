import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { isTempName } from '../../src/blobs/temp-files.ts';
import { loadConfig } from '../../src/config/config.ts';
import { openFileServices } from '../../src/files/file-services.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { FileRecord } from '../../src/model/files.ts';
import type { Setup } from '../helpers/backends.ts';
import { bundleForSpawn } from '../helpers/bundle.ts';
import { startCrashWorker } from '../helpers/crash-process.ts';
import { sha256 } from '../helpers/files.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { createStorage, storageEnv } from '../helpers/test-service.ts';
import { testSize } from '../helpers/test-size.ts';

// Kills in two lanes at once (one per core), each a worker start (~0.5 s from the bundle) plus a
// short run: one lane restores whole channels on PostgreSQL and S3, the other one folder beside a
// neighbour named like it on SQLite and disk.
/**
 * At least 50 kills during whole-channel restores (the bar), fewer in the folder lane beside
 * them: the full size, under `npm run soak` (test/helpers/test-size.ts). `npm test` runs 20 and 10.
 */
const KILLS = testSize({ channel: 20, folder: 10 }, { channel: 50, folder: 25 });
/**
 * Kills that must have landed inside a restore's plan, some of its files done and some not (seen
 * from the state they leave). Half the kills are timed by the worker's progress, nearly all of
 * them inside a plan (measured twice at full size: 25 of 25 channel, 11–12 of 12 folder); timed
 * kills add 6–11. The floor is the same share of the kills at either size: 20 of 50 and 5 of 25
 * at full size, 8 of 20 and 2 of 10 in `npm test`.
 */
const MID_RESTORE_FLOOR = { channel: (KILLS.channel * 2) / 5, folder: KILLS.folder / 5 };
const WORKER = new URL('../helpers/scope-crash-worker.ts', import.meta.url);

type Tree = Map<string, Buffer>; // "folder/filename" → bytes

const blob = () => randomBytes(randomInt(32 * 1024, 160 * 1024));

/** Backup A's tree and B's: in every folder some files the same, some different, some in one only. */
function trees(): { a: Tree; b: Tree } {
  const a: Tree = new Map();
  const b: Tree = new Map();
  // 'docs', the folder lane's scope, has more files than a restore runs at once (4): a kill as
  // one of its files is done can fall before the last one starts.
  for (const [folder, files] of [
    ['docs', 10],
    ['docs2', 6],
    ['other', 6],
  ] as const) {
    for (let i = 0; i < files; i++) {
      const name = `${folder}/f${i}.bin`;
      // f0 the same in both, the next ones different, the last but one in A only, the last in B only.
      const inA = i === 0 ? blob() : undefined;
      if (i < files - 1) a.set(name, inA ?? blob());
      if (i < files - 2 || i === files - 1) b.set(name, inA ?? blob());
    }
  }
  return { a, b };
}

const split = (key: string) => {
  const [folder, filename] = key.split('/') as [string, string];
  return { folder, filename };
};

async function runLane(t: TestContext, bundle: string, lane: 'channel' | 'folder', setup: Setup): Promise<string> {
  const storage = await createStorage(setup);
  t.after(() => storage.drop());
  const store = await openMetadataStore(storage);
  t.after(() => store.close());
  const fixture = await createTenantFixture(store, `Scope ${lane}`);
  const outsider = await createTenantFixture(store, `Outside ${lane}`);
  const config = loadConfig(storageEnv(storage));
  const logger = createLogger('warn', process.stderr);
  const channel = fixture.channel;
  const actor = { adminId: fixture.owner.id };

  // The trees, written and backed up through the services (A, then B; the live files end as B).
  const { a, b } = trees();
  const timestamps: string[] = [];
  {
    const services = await openFileServices(config, store.files, logger, { recover: false });
    try {
      const put = (on: typeof channel, key: string, bytes: Buffer) =>
        services.files.put(on, actor, split(key), Readable.from([bytes]), 'application/octet-stream');
      for (const [key, bytes] of a) await put(channel, key, bytes);
      timestamps.push((await services.backups.create(channel, actor, 'api')).timestamp);
      for (const key of a.keys()) if (!b.has(key)) await services.files.delete(channel, actor, split(key));
      for (const [key, bytes] of b) await put(channel, key, bytes);
      timestamps.push((await services.backups.create(channel, actor, 'api', Date.now() + 1000)).timestamp);
      for (const [key, bytes] of a) await put(outsider.channel, key, bytes);
    } finally {
      await services.close();
    }
  }
  const scope = lane === 'folder' ? 'docs' : undefined;
  const inScope = (key: string) => scope === undefined || split(key).folder === scope;
  const known = (key: string) => new Set([a.get(key), b.get(key)].filter((x) => x !== undefined).map((x) => sha256(x!)));
  const recordsOf = async (channelId: string, outside: boolean) =>
    (await store.files.allFiles(channelId)).filter((f) => channelId !== channel.id || inScope(`${f.folder}/${f.filename}`) !== outside);
  const outsideBefore = [...(await recordsOf(channel.id, true)), ...(await recordsOf(outsider.channel.id, true))];

  // One storage client for every check (hundreds of reads), not one per read.
  const blobs = await openBlobStorage(config);
  t.after(() => blobs.close());
  async function liveBytesMatch(file: FileRecord, when: string): Promise<string> {
    const body = await blobs.get(file.blobKey);
    const bytes = body && Buffer.concat(await body.toArray());
    assert.ok(bytes, `${when}: ${file.folder}/${file.filename} has a record but no bytes`);
    assert.equal(sha256(bytes), file.sha256, `${when}: ${file.folder}/${file.filename} is torn (its bytes are not those recorded)`);
    return file.sha256;
  }

  // The files of the scope that backups A and B hold differently: a restore's plan, either way.
  const differing = [...new Set([...a.keys(), ...b.keys()])].filter(
    (key) => inScope(key) && a.get(key)?.equals(b.get(key) ?? Buffer.alloc(0)) !== true,
  );
  const shaOf = (bytes: Buffer | undefined) => (bytes === undefined ? undefined : sha256(bytes));

  /**
   * No leftover, no unsettled write, nothing torn, every file of the scope one of its known
   * contents, nothing outside changed. Answers which backup each differing file is at, in order:
   * 'a' or 'b' per file (absent counts as the backup that lacks it).
   */
  async function checkRecoveredState(when: string): Promise<string> {
    // On disk, copies are written to temporary files first; on S3 an object is whole or absent.
    if (!storage.s3) {
      const entries = await readdir(path.join(storage.dataDir, 'storage'), { recursive: true, withFileTypes: true });
      assert.deepEqual(
        entries.filter((e) => e.isFile() && isTempName(e.name)).map((e) => e.name),
        [],
        `${when}: temporary files left`,
      );
    }
    assert.deepEqual(await store.files.pendingWrites(), [], `${when}: unsettled writes`);
    const live = new Map<string, string>();
    for (const file of await recordsOf(channel.id, false)) {
      const key = `${file.folder}/${file.filename}`;
      live.set(key, await liveBytesMatch(file, when));
      assert.ok(known(key).has(live.get(key)!), `${when}: ${key} holds bytes of neither backup`);
    }
    const outsideNow = [...(await recordsOf(channel.id, true)), ...(await recordsOf(outsider.channel.id, true))];
    assert.deepEqual(outsideNow, outsideBefore, `${when}: a file outside the scope changed`);
    for (const file of outsideNow) await liveBytesMatch(file, when);
    return differing.map((key) => (live.get(key) === shaOf(a.get(key)) ? 'a' : live.get(key) === shaOf(b.get(key)) ? 'b' : '?')).join('');
  }

  const env = {
    ...storageEnv(storage),
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    CRASH_CHANNEL_ID: channel.id,
    CRASH_ADMIN_ID: fixture.owner.id,
    SCOPE_BACKUPS: timestamps.join(','),
    SCOPE_FOLDER: scope ?? '',
  };
  /** The newest event of the channel's audit log: what a worker does after it is newer. */
  const newestEvent = async () => (await store.files.listAudit(channel.id, { limit: 1 })).items[0]?.id;
  /** Whether a file of the channel was restored or deleted (and its event written) after event `since`. */
  async function fileDoneSince(since: string | undefined): Promise<boolean> {
    let cursor: string | undefined;
    do {
      const page = await store.files.listAudit(channel.id, { limit: 100, cursor });
      for (const event of page.items) {
        if (event.id === since) return false;
        if (event.filename !== null && event.result === 'ok') return true;
      }
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    return false;
  }

  // A kill landed mid-restore when, once recovered, the scope is part A and part B (a finished
  // restore leaves all of one) and that worker had changed a file (its state differs from where
  // the worker began, or the audit log has a file done since): its own restore, not an earlier
  // one, had applied some of its plan but not all.
  const midRestore = { timed: 0, progress: 0 };
  let lastKill: keyof typeof midRestore = 'timed';
  let state = await checkRecoveredState(`${lane} lane, before the first start`);
  assert.equal(state, 'b'.repeat(differing.length), `${lane} lane: the live files are backup B`);
  let before = await newestEvent();
  const recovered = async (when: string) => {
    const now = await checkRecoveredState(when);
    const mixed = now.includes('a') && now.includes('b');
    if (mixed && (now !== state || (await fileDoneSince(before)))) midRestore[lastKill]++;
    state = now;
    before = await newestEvent();
  };
  for (let kill = 1; kill <= KILLS[lane]; kill++) {
    const worker = await startCrashWorker(bundle, env);
    await recovered(`${lane} lane, after restart ${kill}`);
    lastKill = kill % 2 === 0 ? 'progress' : 'timed';
    if (lastKill === 'progress') {
      // Every other kill follows the worker's progress: it restores first the backup the scope
      // is farther from (the larger plan: an interrupted restore run again, or a whole one) and
      // kills itself as one of the first half of that plan's files is done, while the other
      // files it restores at once are in flight and the rest of the plan waits.
      const atB = [...state].filter((at) => at === 'b').length;
      const [plan, first] = atB >= differing.length - atB ? [atB, 0] : [differing.length - atB, 1];
      worker.go(randomInt(1, Math.ceil(plan / 2) + 1), first);
      await worker.killedItself();
    } else {
      // The others fall at a random time, wherever that is (planning, the safety backup, a file…).
      worker.go();
      await sleep(randomInt(20, 400));
      await worker.kill();
    }
  }
  // The last start recovers what the last kill interrupted.
  await (await startCrashWorker(bundle, env)).kill();
  await recovered(`${lane} lane, after the last restart`);
  const backupsTaken = (await store.files.listBackups(channel.id, { limit: 1000 })).items.length - timestamps.length;

  // Running the restore again completes it: the scope is then exactly backup A, and a third run has nothing left.
  const services = await openFileServices(config, store.files, logger, { recover: false });
  try {
    const request = { folder: scope, backupTimestamp: timestamps[0]!, dryRun: false, delete: true };
    await services.scopeRestores.restore(channel, actor, request);
    const live = new Map<string, string>();
    for (const file of await recordsOf(channel.id, false)) live.set(`${file.folder}/${file.filename}`, await liveBytesMatch(file, 'rerun'));
    const expected = new Map([...a].filter(([key]) => inScope(key)).map(([key, bytes]) => [key, sha256(bytes)]));
    assert.deepEqual(live, expected, `${lane} lane: the rerun brought the scope to backup A`);
    const again = await services.scopeRestores.restore(channel, actor, request);
    assert.deepEqual(again.changes, [], `${lane} lane: nothing left to do after the rerun`);
    await checkRecoveredState(`${lane} lane, after the rerun`);
  } finally {
    await services.close();
  }
  assert.ok(backupsTaken > 0, `${lane} lane: the workers restored between kills (${backupsTaken} safety backups)`);
  const landed = midRestore.progress + midRestore.timed;
  const counts = `${landed} of ${KILLS[lane]} kills mid-restore (${midRestore.progress} following progress, ${midRestore.timed} timed)`;
  assert.ok(landed >= MID_RESTORE_FLOOR[lane], `${lane} lane: only ${counts}`);
  return `${lane} lane (${setup}, ${differing.length} files differ): ${counts}, ${backupsTaken} restores reached their safety backup`;
}

test(`${KILLS.channel + KILLS.folder} SIGKILLs during channel and folder restores: no torn file, nothing outside the scope touched, a rerun completes`, async (t) => {
  const bundle = await bundleForSpawn(WORKER);
  const started = Date.now();
  const reports = await Promise.all([runLane(t, bundle, 'channel', 'postgres+s3'), runLane(t, bundle, 'folder', 'sqlite')]);
  t.diagnostic(`${reports.join('; ')}; ${Math.round((Date.now() - started) / 1000)} s`);
});
