import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { ScopeChange } from '../../src/files/scope-restore-plan.ts';
import { ENGINES } from '../helpers/backends.ts';
import { sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/** "folder/filename" → sha256 of the live bytes. */
type State = Map<string, string>;

/**
 * The plan of a folder or channel restore reads only what changed since the backup. This holds it
 * against the obvious plan — every file the backup held compared with every live file — after
 * random uploads, replacements and deletions between backups, for every backup, scope and
 * `delete` choice. Folders `a` and `ab` share a prefix, so a scope that leaks shows.
 */
for (const engine of ENGINES) {
  describe(`the plan of a scope restore equals the full comparison (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    const FOLDERS = ['a', 'ab', 'b'];
    const NAMES = ['1.txt', '2.txt', '3.txt', '4.txt', '5.txt'];
    const CONTENTS = ['one', 'two', 'three'];
    const backups: { timestamp: string; state: State }[] = [];

    before(async () => {
      svc = await startTestService(engine);
      fixture = await createTenantFixture(svc.service.store);
    });
    after(() => svc.close());

    const actor = () => ({ adminId: fixture.owner.id });
    const liveState = async (): Promise<State> =>
      new Map((await svc.service.store.files.allFiles(fixture.channel.id)).map((f) => [`${f.folder}/${f.filename}`, f.sha256]));

    /** The plan by comparing the backup's state (recorded when it was taken) with the live files, file by file. */
    function expectedPlan(backup: State, live: State, folder: string | undefined, withDeletes: boolean) {
      const inScope = (path: string) => folder === undefined || path.startsWith(`${folder}/`);
      const changes: ScopeChange[] = [];
      let unchanged = 0;
      for (const [path, sha] of backup) {
        if (!inScope(path)) continue;
        const current = live.get(path);
        if (current === undefined) changes.push(changeOf(path, 'create'));
        else if (current !== sha) changes.push(changeOf(path, 'replace'));
        else unchanged++;
      }
      if (withDeletes) for (const path of live.keys()) if (inScope(path) && !backup.has(path)) changes.push(changeOf(path, 'delete'));
      changes.sort((x, y) => (`${x.folder}/${x.filename}` < `${y.folder}/${y.filename}` ? -1 : 1));
      return { changes, unchanged };
    }

    test('random writes between backups, every backup, scope and delete choice', async () => {
      // mulberry32: a fixed seed, so that a failure replays.
      let seed = 20261125;
      const random = (n: number) => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) % n;
      };
      const { files, backups: backupService, scopeRestores } = svc.service.files;
      let second = Date.UTC(2026, 0, 1);
      for (let step = 0; step < 120; step++) {
        const path = { folder: FOLDERS[random(FOLDERS.length)]!, filename: NAMES[random(NAMES.length)]! };
        const roll = random(10);
        if (roll < 6) {
          await files.put(fixture.channel, actor(), path, Readable.from([CONTENTS[random(CONTENTS.length)]!]), 'text/plain');
        } else if (roll < 9) {
          await files.delete(fixture.channel, actor(), path).catch((error) => assert.equal(error.code, 'FILE_NOT_FOUND'));
        } else {
          second += 1000;
          const backup = await backupService.create(fixture.channel, actor(), 'api', second);
          backups.push({ timestamp: backup.timestamp, state: await liveState() });
        }
      }
      assert.ok(backups.length >= 5, `${backups.length} backups were taken`);

      const live = await liveState();
      let compared = 0;
      for (const backup of backups) {
        for (const folder of [undefined, ...FOLDERS]) {
          for (const withDeletes of [false, true]) {
            const plan = await scopeRestores.restore(fixture.channel, actor(), {
              folder,
              backupTimestamp: backup.timestamp,
              dryRun: true,
              delete: withDeletes,
            });
            const { changes, unchanged } = expectedPlan(backup.state, live, folder, withDeletes);
            const scope = `backup ${backup.timestamp}, ${folder ?? 'the channel'}, delete=${withDeletes}`;
            assert.deepEqual(plan.changes, changes, scope);
            assert.equal(plan.unchanged, unchanged, scope);
            compared++;
          }
        }
      }
      assert.equal(compared, backups.length * 8);
      // The folder counts every write keeps are the live files' (folders without one are not listed).
      const counted = (await svc.service.store.files.listFolders(fixture.channel.id, { limit: 100 })).items;
      const byFolder = new Map<string, number>();
      for (const path of live.keys()) byFolder.set(path.split('/')[0]!, (byFolder.get(path.split('/')[0]!) ?? 0) + 1);
      assert.deepEqual(
        counted,
        [...byFolder].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, fileCount]) => ({ name, fileCount })),
      );

      // And the plan is what a restore does: the channel then holds exactly the backup's files.
      const target = backups[Math.floor(backups.length / 2)]!;
      const restored = await scopeRestores.restore(fixture.channel, actor(), {
        backupTimestamp: target.timestamp,
        dryRun: false,
        delete: true,
      });
      assert.ok(restored.changes.length > 0, 'the middle backup differs from the live files');
      assert.deepEqual(await liveState(), target.state);
      const again = await scopeRestores.restore(fixture.channel, actor(), {
        backupTimestamp: target.timestamp,
        dryRun: true,
        delete: true,
      });
      assert.deepEqual(again.changes, []);
      assert.equal(again.unchanged, target.state.size);
      assert.ok([...target.state.values()].every((sha) => CONTENTS.map(sha256).includes(sha)));
    });
  });
}

const changeOf = (path: string, action: ScopeChange['action']): ScopeChange => {
  const [folder, filename] = path.split('/') as [string, string];
  return { folder, filename, action };
};
