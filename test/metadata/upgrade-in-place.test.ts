import assert from 'node:assert/strict';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { privateKeyToAccount } from 'viem/accounts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { createClient, fromViemAccount, ProblemError, type WalletAdminClient } from '../../src/client/index.ts';
import { Retention } from '../../src/files/retention.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { FILE_SETUPS, type Setup } from '../helpers/backends.ts';
import { nextSecond, sha256 } from '../helpers/files.ts';
import type { TestS3 } from '../helpers/s3-server.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';

/**
 * Data written by the release before instant backups (test/fixtures/upgrade, see its README) —
 * a SQLite DATA_DIR, a PostgreSQL database with its DATA_DIR, a PostgreSQL database with its S3
 * bucket — opens with this one: the migrations convert it, and every backup and version it holds
 * stays restorable, beside new writes and new backups; retention keeps what they need of it.
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
const FILES = ['docs/a.txt', 'docs/b.txt', 'other/c.txt', 'other/d.txt'];

const split = (file: string) => file.split('/') as [string, string];

interface Upgraded {
  storage: Storage;
  svc: TestService;
  api: WalletAdminClient;
  expected: Expected;
  /** Before the service opened the data, so before migration 006 ran on it. */
  upgradedAfter: number;
  read(file: string): Promise<string>;
  /** Restores each file from the backup and checks the live file then holds its text (bytes and recorded sha256). */
  restoreAll(backup: string, files: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

/** A fresh copy of the fixture of `setup`, opened by the current release. */
async function openUpgraded(setup: Setup): Promise<Upgraded> {
  const fixture = path.join(FIXTURES, setup);
  const storage = await createStorage(setup);
  if (storage.s3) await loadBucket(storage.s3, fixture);
  else await cp(path.join(fixture, 'data'), storage.dataDir, { recursive: true });
  if (storage.databaseUrl) await loadDump(storage.databaseUrl, await readFile(path.join(fixture, 'metadata.sql'), 'utf8'));
  const expected = JSON.parse(await readFile(path.join(fixture, 'expected.json'), 'utf8')) as Expected;
  const upgradedAfter = Date.now();
  const svc = await startTestService(setup, { storage, transport: 'socket' });
  const api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(privateKeyToAccount(FIXTURE_KEY)) });
  const read = async (file: string) => (await api.download(expected.channelId, ...split(file))).text();
  return {
    storage,
    svc,
    api,
    expected,
    upgradedAfter,
    read,
    async restoreAll(backup, files) {
      for (const [file, text] of Object.entries(files)) {
        await api.restore(expected.channelId, ...split(file), { backupTimestamp: backup });
        assert.equal(await read(file), text, `${file} from backup ${backup}`);
        assert.equal((await api.stat(expected.channelId, ...split(file)))?.sha256, sha256(text), `${file}'s recorded sha256`);
      }
    },
    async close() {
      await svc.close();
      await storage.drop();
    },
  };
}

for (const setup of FILE_SETUPS) {
  describe(`upgrade in place of data written by the previous release (${setup})`, () => {
    let fx: Upgraded;
    before(async () => {
      fx = await openUpgraded(setup);
    });
    after(() => fx?.close());

    test('the live files and both backups are there as written', async () => {
      const { api, expected } = fx;
      for (const [file, text] of Object.entries(LIVE)) assert.equal(await fx.read(file), text);
      // The folder counts (migration 007) were filled from the live files.
      assert.deepEqual((await api.listFolders(expected.channelId)).items, [
        { name: 'docs', fileCount: 1 },
        { name: 'other', fileCount: 2 },
      ]);
      // Nothing recorded what made them: origin null, claimed for nothing (migration 012).
      const backups = (await api.listBackups(expected.channelId)).items.map((b) => [b.timestamp, b.files, b.origin]);
      assert.deepEqual(backups, [
        [expected.backups[1], 3, null],
        [expected.backups[0], 3, null],
      ]);
      // Usage (migration 026): the live files and every stored version, each record once, as counted from the rows.
      const usage = await api.channelUsage(expected.channelId);
      const live = Object.values(LIVE);
      assert.deepEqual(usage.usage.live, { files: live.length, bytes: live.reduce((sum, text) => sum + Buffer.byteLength(text), 0) });
      let kept = { files: 0, bytes: 0 };
      for (const file of FILES) {
        for (const version of (await api.versions(expected.channelId, ...split(file), { limit: 100 })).items) {
          kept = { files: kept.files + 1, bytes: kept.bytes + version.size };
        }
      }
      assert.deepEqual(usage.usage.kept, kept);
    });

    test('every kept version holds its bytes: restored by id, the file gets them', async () => {
      const { api, expected } = fx;
      for (const file of FILES) {
        const versions = (await api.versions(expected.channelId, ...split(file), { limit: 100 })).items;
        assert.ok(versions.length >= 1, `${file} has versions`);
        for (const version of versions) {
          await api.restore(expected.channelId, ...split(file), { versionId: version.id });
          const live = await api.stat(expected.channelId, ...split(file));
          assert.equal(live?.sha256, version.sha256, `${file} restored from ${version.kind} version ${version.id}`);
          assert.equal(sha256(await fx.read(file)), version.sha256, `${file}'s bytes from ${version.kind} version ${version.id}`);
        }
      }
    });

    test('both backups restore every file they hold, and a folder restore brings back the deleted one', async () => {
      const { api, expected } = fx;
      await fx.restoreAll(expected.backups[0], FIRST);
      await fx.restoreAll(expected.backups[1], SECOND);
      await api.deleteFile(expected.channelId, 'docs', 'b.txt');
      const plan = await api.restoreFolder(expected.channelId, 'docs', { backupTimestamp: expected.backups[0] });
      assert.deepEqual(
        plan.changes.map((c) => [c.filename, c.action]),
        [
          ['a.txt', 'replace'],
          ['b.txt', 'create'],
        ],
      );
      assert.equal(await fx.read('docs/a.txt'), FIRST['docs/a.txt']);
      assert.equal(await fx.read('docs/b.txt'), FIRST['docs/b.txt']);
      assert.equal((await api.stat(expected.channelId, 'docs', 'b.txt'))?.sha256, sha256(FIRST['docs/b.txt']));
    });

    test('an instant before the upgrade is not retained (when each older write happened is unknown); one after it is', async () => {
      const { api, expected } = fx;
      const refusal = await api.restore(expected.channelId, 'docs', 'a.txt', { at: new Date(fx.upgradedAfter - 1) }).then(
        () => assert.fail('an instant before the upgrade was restored'),
        (error: unknown) => error,
      );
      assert.ok(refusal instanceof ProblemError);
      assert.equal(refusal.status, 404);
      assert.equal(refusal.code, 'INSTANT_NOT_RETAINED');
      const oldest = /oldest retained instant is (\S+)$/.exec(refusal.detail)?.[1];
      assert.ok(oldest !== undefined && Date.parse(oldest) >= fx.upgradedAfter, refusal.detail);
      const before = await fx.read('docs/a.txt');
      await api.restore(expected.channelId, 'docs', 'a.txt', { at: new Date() });
      assert.equal(await fx.read('docs/a.txt'), before, 'the state now is the live one');
    });

    test('after the upgrade: new writes and an instant backup, restorable beside the old ones', async () => {
      const { api, expected } = fx;
      await api.upload(expected.channelId, 'docs', 'a.txt', 'a: after the upgrade');
      await nextSecond();
      const instant = await api.createBackup(expected.channelId);
      assert.equal(instant.files, 4);
      await api.upload(expected.channelId, 'docs', 'a.txt', 'a: after the new backup');
      await api.upload(expected.channelId, 'other', 'c.txt', 'c: changed at last');
      // c.txt was written before the upgrade and unchanged until after the new backup.
      await fx.restoreAll(instant.timestamp, { 'docs/a.txt': 'a: after the upgrade', 'other/c.txt': 'c: first' });
      await fx.restoreAll(expected.backups[1], SECOND);
      await fx.restoreAll(expected.backups[0], FIRST);
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
      const old = (await api.listAudit(expected.channelId, { limit: 1000 })).items.filter((e) => Date.parse(e.time) < fx.upgradedAfter);
      assert.ok(old.length > 0 && old.every((e) => e.operationId === null && e.operation === null));
    });
  });

  describe(`retention on data written by the previous release (${setup})`, () => {
    let fx: Upgraded;
    before(async () => {
      fx = await openUpgraded(setup);
    });
    after(() => fx?.close());

    test('keeps exactly what a kept backup (per-file or instant) or a kept version needs; the rest goes, bytes too', async () => {
      const { api, expected, svc } = fx;
      const channelId = expected.channelId;
      const channel = (await svc.service.store.getChannel(channelId))!;
      const catalog = svc.service.store.files;
      // After the upgrade: 'a: third, live' becomes a version in no backup; 'a: fourth' one that the
      // instant backup names; 'a: fifth' a.txt's newest version.
      await api.upload(channelId, 'docs', 'a.txt', 'a: fourth');
      const instant = (await api.createBackup(channelId)).timestamp;
      await api.upload(channelId, 'docs', 'a.txt', 'a: fifth');
      await api.upload(channelId, 'docs', 'a.txt', 'a: sixth, live');

      // The newest two backups are kept (the instant one and the second per-file one), the first
      // goes; every replaced or deleted version is past VERSION_KEEP_DAYS (0) a minute from now.
      const blobs = await openBlobStorage(svc.config);
      try {
        const quiet = createLogger('warn', new Writable({ write: (_chunk, _encoding, done) => done() }));
        const rules = { keepLast: 2, keepDays: 0, versionKeepDays: 0 };
        const later = Date.now() + 60_000;
        const { blobsRemoved } = await new Retention(blobs, catalog, rules, quiet, () => later).apply(channel);

        assert.deepEqual(
          (await api.listBackups(channelId)).items.map((b) => b.timestamp),
          [instant, expected.backups[1]],
        );
        const texts = new Map(
          [...Object.values(FIRST), ...Object.values(SECOND), ...Object.values(LIVE), 'a: fourth', 'a: fifth', 'a: sixth, live'].map(
            (text) => [sha256(text), text],
          ),
        );
        const kept = async (file: string) =>
          (await api.versions(channelId, ...split(file), { limit: 100 })).items
            .map((v) => `${v.kind} ${v.timestamp ?? '-'} ${texts.get(v.sha256)}`)
            .sort();
        assert.deepEqual(await kept('docs/a.txt'), [
          `backup ${expected.backups[1]} a: second`,
          `backup ${instant} a: fourth`,
          'replaced - a: fifth',
          'replaced - a: fourth',
        ]);
        // b.txt's deleted version is older than VERSION_KEEP_DAYS but all that is left of it.
        assert.deepEqual(await kept('docs/b.txt'), ['deleted - b: only version']);
        assert.deepEqual(await kept('other/c.txt'), [`backup ${expected.backups[1]} c: first`, `backup ${instant} c: first`]);
        assert.deepEqual(await kept('other/d.txt'), [
          `backup ${expected.backups[1]} d: after the first backup`,
          `backup ${instant} d: after the first backup`,
        ]);

        // Stored: exactly the bytes of what is kept (the live files' and the versions'), wherever the
        // previous release or this one put them. The first backup's three per-file copies and the
        // versions 'a: first', 'a: second' and 'a: third, live' are gone.
        const stored: string[] = [];
        for (const prefix of [`versions/${channelId}`, `backups/${channelId}`, `files/${channelId}`, `objects/${channelId}`])
          for await (const blob of blobs.list(prefix)) stored.push(blob.key);
        const needed = new Set<string>();
        for (const file of FILES)
          for (const version of (await catalog.listVersions(channelId, ...split(file), { limit: 100 })).items)
            if (version.blobKey !== null) needed.add(version.blobKey);
        for (const live of await catalog.allFiles(channelId)) needed.add(live.blobKey);
        assert.deepEqual(stored.sort(), [...needed].sort());
        assert.equal(blobsRemoved, 6);
        assert.equal(
          (await new Retention(blobs, catalog, rules, quiet, () => later).apply(channel)).blobsRemoved,
          0,
          'a second run frees nothing',
        );
      } finally {
        await blobs.close();
      }

      // What is kept still restores: both backups every file they hold, every version by id.
      await fx.restoreAll(expected.backups[1], SECOND);
      await fx.restoreAll(instant, { 'docs/a.txt': 'a: fourth', 'other/c.txt': 'c: first', 'other/d.txt': 'd: after the first backup' });
      for (const file of FILES)
        for (const version of (await api.versions(channelId, ...split(file), { limit: 100 })).items) {
          await api.restore(channelId, ...split(file), { versionId: version.id });
          assert.equal(sha256(await fx.read(file)), version.sha256, `${file} restored from ${version.kind} version ${version.id}`);
        }
      const gone = await api.restore(channelId, 'docs', 'a.txt', { backupTimestamp: expected.backups[0] }).then(
        () => assert.fail('the first backup, no longer kept, restored'),
        (error: unknown) => error,
      );
      assert.ok(gone instanceof ProblemError && gone.code === 'BACKUP_NOT_FOUND', String(gone));
    });
  });
}

/** Puts the fixture's objects (bucket/<key>, with bucket.json's content type and metadata) into a fresh bucket. */
async function loadBucket(s3: TestS3, fixture: string): Promise<void> {
  const objects = JSON.parse(await readFile(path.join(fixture, 'bucket.json'), 'utf8')) as {
    key: string;
    contentType?: string;
    metadata: Record<string, string>;
  }[];
  for (const object of objects) {
    const body = await readFile(path.join(fixture, 'bucket', ...object.key.split('/')));
    await s3.putObject(object.key, body, { contentType: object.contentType, metadata: object.metadata });
  }
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
