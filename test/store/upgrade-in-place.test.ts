import assert from 'node:assert/strict';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { createClient, fromViemAccount, ProblemError, type WalletAdminClient } from '../../src/client/index.ts';
import { ENGINES } from '../helpers/backends.ts';
import { nextSecond } from '../helpers/files.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';

/**
 * Data written by the release before instant backups (test/fixtures/upgrade, see its README)
 * opens with this one: the migrations convert it, and every backup and version it holds stays
 * restorable, beside new writes and new backups.
 */
const FIXTURES = fileURLToPath(new URL('../fixtures/upgrade/', import.meta.url));
/** Anvil development account #1, the fixture's owner admin. */
const FIXTURE_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

interface Expected {
  channelId: string;
  adminId: string;
  backups: [string, string];
}

/** What the fixture's two backups and its live files hold (make-fixture.ts). */
const FIRST = { 'docs/a.txt': 'a: first', 'docs/b.txt': 'b: only version', 'other/c.txt': 'c: first' };
const SECOND = { 'docs/a.txt': 'a: second', 'other/c.txt': 'c: first', 'other/d.txt': 'd: after the first backup' };
const LIVE = { 'docs/a.txt': 'a: third, live', 'other/c.txt': 'c: first', 'other/d.txt': 'd: after the first backup' };

for (const engine of ENGINES) {
  describe(`upgrade in place of data written by the previous release (${engine})`, () => {
    let storage: Storage;
    let svc: TestService;
    let expected: Expected;
    let api: WalletAdminClient;
    /** Before the service opened the data, so before migration 006 ran on it. */
    let upgradedAfter: number;

    before(async () => {
      storage = await createStorage(engine);
      await cp(path.join(FIXTURES, engine, 'data'), storage.dataDir, { recursive: true });
      if (storage.databaseUrl) await loadDump(storage.databaseUrl, await readFile(path.join(FIXTURES, engine, 'metadata.sql'), 'utf8'));
      expected = JSON.parse(await readFile(path.join(FIXTURES, engine, 'expected.json'), 'utf8')) as Expected;
      upgradedAfter = Date.now();
      svc = await startTestService(engine, { storage, transport: 'socket' });
      api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(privateKeyToAccount(FIXTURE_KEY)) });
    });
    after(async () => {
      await svc?.close();
      await storage?.drop();
    });

    const read = async (file: string) => {
      const [folder, filename] = file.split('/') as [string, string];
      return (await api.download(expected.channelId, folder, filename)).text();
    };
    const restoreAll = async (backup: string, files: Record<string, string>) => {
      for (const [file, text] of Object.entries(files)) {
        const [folder, filename] = file.split('/') as [string, string];
        await api.restore(expected.channelId, folder, filename, { backupTimestamp: backup });
        assert.equal(await read(file), text, `${file} from backup ${backup}`);
      }
    };

    test('the live files and both backups are there as written', async () => {
      for (const [file, text] of Object.entries(LIVE)) assert.equal(await read(file), text);
      // The folder counts (migration 007) were filled from the live files.
      assert.deepEqual((await api.listFolders(expected.channelId)).items, [
        { name: 'docs', fileCount: 1 },
        { name: 'other', fileCount: 2 },
      ]);
      const backups = (await api.listBackups(expected.channelId)).items.map((b) => [b.timestamp, b.files]);
      assert.deepEqual(backups, [
        [expected.backups[1], 3],
        [expected.backups[0], 3],
      ]);
    });

    test('every kept version holds its bytes: restored by id, the file gets them', async () => {
      for (const file of ['docs/a.txt', 'docs/b.txt']) {
        const [folder, filename] = file.split('/') as [string, string];
        const versions = (await api.versions(expected.channelId, folder, filename, { limit: 100 })).items;
        assert.ok(versions.length >= 1, `${file} has versions`);
        for (const version of versions) {
          await api.restore(expected.channelId, folder, filename, { versionId: version.id });
          const live = await api.stat(expected.channelId, folder, filename);
          assert.equal(live?.sha256, version.sha256, `${file} restored from ${version.kind} version ${version.id}`);
        }
      }
    });

    test('both backups restore every file they hold, and a folder restore brings back the deleted one', async () => {
      await restoreAll(expected.backups[0], FIRST);
      await restoreAll(expected.backups[1], SECOND);
      await api.deleteFile(expected.channelId, 'docs', 'b.txt');
      const plan = await api.restoreFolder(expected.channelId, 'docs', { backupTimestamp: expected.backups[0] });
      assert.deepEqual(
        plan.changes.map((c) => [c.filename, c.action]),
        [
          ['a.txt', 'replace'],
          ['b.txt', 'create'],
        ],
      );
      assert.equal(await read('docs/b.txt'), FIRST['docs/b.txt']);
    });

    test('an instant before the upgrade is not retained (when each older write happened is unknown); one after it is', async () => {
      const refusal = await api.restore(expected.channelId, 'docs', 'a.txt', { at: new Date(upgradedAfter - 1) }).then(
        () => assert.fail('an instant before the upgrade was restored'),
        (error: unknown) => error,
      );
      assert.ok(refusal instanceof ProblemError);
      assert.equal(refusal.status, 404);
      assert.equal(refusal.code, 'INSTANT_NOT_RETAINED');
      const oldest = /oldest retained instant is (\S+)$/.exec(refusal.detail)?.[1];
      assert.ok(oldest !== undefined && Date.parse(oldest) >= upgradedAfter, refusal.detail);
      const before = await read('docs/a.txt');
      await api.restore(expected.channelId, 'docs', 'a.txt', { at: new Date() });
      assert.equal(await read('docs/a.txt'), before, 'the state now is the live one');
    });

    test('after the upgrade: new writes and an instant backup, restorable beside the old ones', async () => {
      await api.upload(expected.channelId, 'docs', 'a.txt', 'a: after the upgrade');
      await nextSecond();
      const instant = await api.createBackup(expected.channelId);
      assert.equal(instant.files, 4);
      await api.upload(expected.channelId, 'docs', 'a.txt', 'a: after the new backup');
      await api.upload(expected.channelId, 'other', 'c.txt', 'c: changed at last');
      // c.txt was written before the upgrade and unchanged until after the new backup.
      await restoreAll(instant.timestamp, { 'docs/a.txt': 'a: after the upgrade', 'other/c.txt': 'c: first' });
      await restoreAll(expected.backups[1], SECOND);
      const changes = (await api.changes(expected.channelId, { from: expected.backups[0], to: instant.timestamp })).items;
      assert.deepEqual(
        changes.map((c) => [`${c.folder}/${c.filename}`, c.change]),
        [
          ['docs/a.txt', 'changed'],
          ['other/d.txt', 'added'],
        ],
      );
      // A backup written before the upgrade has no place on the new clock: it lies before every state that has one.
      const toNow = (await api.changes(expected.channelId, { from: expected.backups[0] })).items;
      assert.ok(toNow.length > 0);
      assert.deepEqual((await api.changes(expected.channelId, { from: expected.backups[0], toAt: new Date() })).items, toNow);
      const inverted = await api.changes(expected.channelId, { from: instant.timestamp, to: expected.backups[1] }).then(
        () => assert.fail('a range from the new backup back to an old one was answered'),
        (error: unknown) => error as ProblemError,
      );
      assert.equal(inverted.status, 400);
      assert.match(inverted.detail, new RegExp(`^to \\(${expected.backups[1]}\\) is older than from \\(${instant.timestamp}\\)`));
      // Events of the old release belong to no operation.
      const old = (await api.listAudit(expected.channelId, { limit: 1000 })).items.filter((e) => Date.parse(e.time) < upgradedAfter);
      assert.ok(old.length > 0 && old.every((e) => e.operationId === null && e.operation === null));
    });
  });
}

/** Loads a plain pg_dump: its psql meta-commands (\restrict…) are psql's, not the server's. */
async function loadDump(url: string, dump: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      dump
        .split('\n')
        .filter((line) => !line.startsWith('\\'))
        .join('\n'),
    );
  } finally {
    await client.end();
  }
}
