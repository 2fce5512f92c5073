import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { BlobStorage } from '../../src/blobs/blob-storage.ts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { loadConfig } from '../../src/config/config.ts';
import { AuditTrail } from '../../src/files/audit-trail.ts';
import { BackupScheduler } from '../../src/files/backup-scheduler.ts';
import { BackupService } from '../../src/files/backup-service.ts';
import { filePath } from '../../src/files/file-path.ts';
import { FileService } from '../../src/files/file-service.ts';
import { RestoreService } from '../../src/files/restore-service.ts';
import { Retention } from '../../src/files/retention.ts';
import { settleJournal } from '../../src/files/write-journal.ts';
import { KeyedMutex } from '../../src/locks/keyed-mutex.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { Channel } from '../../src/model/channels.ts';
import type { FileCatalog, MetadataStore } from '../../src/model/metadata-store.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { sha256 } from '../helpers/files.ts';
import { createStorage, type Storage } from '../helpers/test-service.ts';

const DAY = 86_400_000;
const SERVICE = { adminId: null };

function collectingLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write: (chunk: Buffer, _e, done) => {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

for (const setup of FILE_SETUPS) {
  describe(`retention and scheduled backups (${setup})`, () => {
    let storage: Storage;
    let blobs: BlobStorage;
    let store: MetadataStore;
    let channel: Channel;
    let clock: number;
    const now = () => clock;
    const { logger, lines } = collectingLogger();

    const services = (catalog: FileCatalog = store.files) => {
      const shared = { blobs, catalog, locks: new KeyedMutex(), audit: new AuditTrail(catalog, logger, now), now };
      return {
        blobs,
        files: new FileService({ ...shared, maxFileBytes: 1 << 20 }),
        backups: new BackupService(shared),
        restores: new RestoreService(shared),
        retention: new Retention(blobs, catalog, { keepLast: 2, keepDays: 1, versionKeepDays: 2 }, logger, now),
        settleJournal: (startedBefore: number) => settleJournal({ blobs, catalog, locks: shared.locks, logger }, startedBefore),
      };
    };
    const put = (s: ReturnType<typeof services>, name: string, text: string) =>
      s.files.put(channel, SERVICE, filePath('docs', name), Readable.from([Buffer.from(text)]), 'text/plain');
    const read = async (s: ReturnType<typeof services>, name: string) => {
      const { body } = await s.files.get(channel, filePath('docs', name));
      return Buffer.concat(await body.toArray()).toString();
    };

    before(async () => {
      storage = await createStorage(setup);
      store = await openMetadataStore(storage);
      blobs = await openBlobStorage(loadConfig({ DATA_DIR: storage.dataDir, ...storage.env }));
      const tenant = await store.createTenant({ name: 'Retention' });
      channel = await store.createChannel({ tenantId: tenant.id, name: 'kept' });
    });
    after(async () => {
      await blobs.close();
      await store.close();
      await storage.drop();
    });

    test('keeps the newest BACKUP_KEEP_LAST backups and those younger than BACKUP_KEEP_DAYS; old versions go, the newest of each file stays', async () => {
      const s = services();
      clock = Date.UTC(2026, 0, 1);
      await put(s, 'a.txt', 'a0');
      await put(s, 'b.txt', 'b-doomed');
      await put(s, 'c.txt', 'c-never-changes');
      const timestamps: string[] = [];
      for (let day = 1; day <= 5; day++) {
        clock = Date.UTC(2026, 0, 1) + day * DAY;
        await put(s, 'a.txt', `a${day}`);
        timestamps.push((await s.backups.create(channel, SERVICE, 'schedule')).timestamp);
        if (day === 1) {
          clock += DAY / 2;
          await s.files.delete(channel, SERVICE, filePath('docs', 'b.txt'));
        }
      }
      clock = Date.UTC(2026, 0, 1) + 5 * DAY + 3_600_000;
      const { blobsRemoved } = await s.retention.apply(channel);
      assert.ok(blobsRemoved > 0);

      const kept = (await store.files.listBackups(channel.id, { limit: 100 })).items.map((b) => b.timestamp);
      assert.deepEqual(kept, [timestamps[4], timestamps[3]]);
      // One entry for the run, the service as actor, committed with what it removed (docs/audit-chain.md).
      const pruned = (await store.files.listAudit(channel.id, { limit: 10 }, { action: 'retention' })).items;
      assert.equal(pruned.length, 1);
      assert.equal(pruned[0]!.adminId, null);
      assert.equal(pruned[0]!.operator, null);
      assert.deepEqual((pruned[0]!.change!.before as { backups: string[] }).backups, timestamps.slice(0, 3));
      assert.ok((pruned[0]!.change!.before as { versions: number }).versions > 0);
      assert.equal((pruned[0]!.change!.before as { blobs: number }).blobs, blobsRemoved);
      const versionsOf = async (name: string) => (await store.files.listVersions(channel.id, 'docs', name, { limit: 100 })).items;
      // Exactly what a kept backup or version needs is kept: every stored blob but the live files'
      // is the bytes of a listed version, and every listed version's bytes are stored.
      const stored = new Set<string>();
      for await (const blob of blobs.list(`objects/${channel.id}`)) stored.add(blob.key);
      const needed = new Set<string>();
      for (const name of ['a.txt', 'b.txt', 'c.txt']) for (const v of await versionsOf(name)) if (v.blobKey !== null) needed.add(v.blobKey);
      for (const live of await store.files.allFiles(channel.id)) needed.add(live.blobKey);
      assert.deepEqual([...stored].sort(), [...needed].sort(), 'removed backups and versions left no bytes behind, kept ones lost none');

      const replaced = (await versionsOf('a.txt')).filter((v) => v.kind === 'replaced');
      assert.ok(replaced.length > 0);
      assert.ok(
        replaced.every((v) => v.createdAt >= clock - 2 * DAY),
        'replaced versions older than VERSION_KEEP_DAYS are gone',
      );
      for (const version of [...(await versionsOf('a.txt')), ...(await versionsOf('c.txt'))]) {
        // A backup's entry without a blob of its own holds the live bytes.
        const body = await s.blobs.get(version.blobKey ?? (await store.files.getFile(channel.id, 'docs', version.filename))!.blobKey);
        assert.ok(body, `the blob of kept version ${version.id} is still there`);
        assert.equal(sha256(Buffer.concat(await body.toArray())), version.sha256);
      }

      // b.txt was deleted on day 1.5: its 'deleted' version is older than VERSION_KEEP_DAYS but the
      // newest (and only) thing left of it, so it stays and brings the file back.
      const b = await versionsOf('b.txt');
      assert.deepEqual(
        b.map((v) => v.kind),
        ['deleted'],
      );
      await s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'b.txt' }, { versionId: b[0]!.id });
      assert.equal(await read(s, 'b.txt'), 'b-doomed');

      // The kept backups still restore exactly.
      await s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'a.txt' }, { backupTimestamp: timestamps[3] });
      assert.equal(await read(s, 'a.txt'), 'a4');
      assert.equal((await s.retention.apply(channel)).blobsRemoved, 0, 'a second run finds nothing more to remove');
      assert.equal(
        (await store.files.listAudit(channel.id, { limit: 10 }, { action: 'retention' })).items.length,
        1,
        'a run that removes nothing writes no entry',
      );
    });

    test('a replaced or deleted version past VERSION_KEEP_DAYS stays while a kept backup names an instant of its span, and goes (row and bytes) once that backup does', async () => {
      const s = services();
      const tenant = await store.createTenant({ name: 'Spans' });
      const spans = await store.createChannel({ tenantId: tenant.id, name: 'spans' });
      const start = Date.UTC(2026, 1, 1);
      const at = (days: number) => (clock = start + days * DAY);
      const write = (name: string, text: string) =>
        s.files.put(spans, SERVICE, filePath('docs', name), Readable.from([Buffer.from(text)]), 'text/plain');
      const readLive = async (name: string) => {
        const { body } = await s.files.get(spans, filePath('docs', name));
        return Buffer.concat(await body.toArray()).toString();
      };
      const versionsOf = async (name: string) => (await store.files.listVersions(spans.id, 'docs', name, { limit: 100 })).items;
      // The list shows each backup's entry of the file too; the rows retention keeps or frees are the others.
      const keptVersions = async (name: string) => (await versionsOf(name)).filter((v) => v.kind !== 'backup');
      const versionHolding = async (name: string, text: string) => {
        const found = (await keptVersions(name)).find((v) => v.sha256 === sha256(text));
        assert.ok(found?.blobKey, `${name}: a version holds ${text}`);
        return { id: found.id, blobKey: found.blobKey };
      };
      const ids = async (name: string) => (await keptVersions(name)).map((v) => v.id);
      const retention = (rules: { keepLast: number; keepDays: number }) =>
        new Retention(blobs, store.files, { ...rules, versionKeepDays: 1 }, logger, now);

      at(0);
      await write('a.txt', 'a1');
      await write('b.txt', 'b1');
      at(0.1);
      const held = (await s.backups.create(spans, SERVICE, 'schedule')).timestamp;
      // Day 1: a1 is replaced and b1 deleted; the backup above names an instant of both spans.
      at(1);
      await write('a.txt', 'a2');
      await s.files.delete(spans, SERVICE, filePath('docs', 'b.txt'));
      // Newer versions of both files, so that neither version is its file's newest (always kept);
      // a2 is live between two writes no backup names: nothing holds it once it is old.
      at(1.1);
      await write('b.txt', 'b2');
      at(1.2);
      await write('b.txt', 'b3');
      at(1.3);
      await write('a.txt', 'a3');
      at(1.4);
      await write('a.txt', 'a4');
      at(2);
      await s.backups.create(spans, SERVICE, 'schedule');
      at(2.1);
      await s.backups.create(spans, SERVICE, 'schedule');
      const a1 = await versionHolding('a.txt', 'a1');
      const b1 = await versionHolding('b.txt', 'b1');
      const a2 = await versionHolding('a.txt', 'a2');
      const stored = async (key: string) => (await blobs.stat(key)) !== undefined;

      // Day 3.5: every replaced and deleted version is older than VERSION_KEEP_DAYS (1).
      at(3.5);
      // Kept by BACKUP_KEEP_LAST (the third newest of 3; BACKUP_KEEP_DAYS 0 keeps none by age).
      await retention({ keepLast: 3, keepDays: 0 }).apply(spans);
      assert.ok((await ids('a.txt')).includes(a1.id) && (await stored(a1.blobKey)), 'a1 stays: the kept backup holds it');
      assert.ok((await ids('b.txt')).includes(b1.id) && (await stored(b1.blobKey)), 'b1 stays: the kept backup holds it');
      assert.ok(!(await ids('a.txt')).includes(a2.id), 'a2, in no backup, is gone');
      assert.equal(await stored(a2.blobKey), false, "a2's bytes are gone");
      // Kept by BACKUP_KEEP_DAYS (3.4 days old, younger than 4) though no longer among the newest 2.
      assert.equal((await retention({ keepLast: 2, keepDays: 4 }).apply(spans)).blobsRemoved, 0);
      assert.ok((await ids('a.txt')).includes(a1.id) && (await ids('b.txt')).includes(b1.id));
      assert.ok((await stored(a1.blobKey)) && (await stored(b1.blobKey)));
      assert.ok(await store.files.getBackup(spans.id, held), 'the backup is kept');
      // And it restores what it held.
      await s.restores.restore(spans, SERVICE, { folder: 'docs', filename: 'a.txt' }, { backupTimestamp: held });
      await s.restores.restore(spans, SERVICE, { folder: 'docs', filename: 'b.txt' }, { backupTimestamp: held });
      assert.equal(await readLive('a.txt'), 'a1');
      assert.equal(await readLive('b.txt'), 'b1');

      // Day 4.2: the backup is 4.1 days old and not among the newest 2: it goes, and both versions with it.
      at(4.2);
      const { blobsRemoved } = await retention({ keepLast: 2, keepDays: 4 }).apply(spans);
      assert.equal(await store.files.getBackup(spans.id, held), undefined, 'the backup is no longer kept');
      assert.ok(!(await ids('a.txt')).includes(a1.id), "a1's row is gone");
      assert.ok(!(await ids('b.txt')).includes(b1.id), "b1's row is gone");
      assert.equal(await stored(a1.blobKey), false, "a1's bytes are gone");
      assert.equal(await stored(b1.blobKey), false, "b1's bytes are gone");
      // The restores made a4 and b3 versions (young, kept) and so a3 and b2 no longer their files'
      // newest: in no backup, they go too. What is left is exactly what the remaining versions hold.
      const texts = async (name: string) => (await keptVersions(name)).map((v) => v.sha256);
      assert.deepEqual(await texts('a.txt'), [sha256('a4')]);
      assert.deepEqual(await texts('b.txt'), [sha256('b3')]);
      assert.equal(blobsRemoved, 4);
      const left = [];
      for await (const blob of blobs.list(`objects/${spans.id}`)) left.push(blob.key);
      const needed = new Set([...(await versionsOf('a.txt')), ...(await versionsOf('b.txt'))].map((v) => v.blobKey));
      for (const live of await store.files.allFiles(spans.id)) needed.add(live.blobKey);
      needed.delete(null);
      assert.deepEqual(left.sort(), [...needed].sort());
      // The live files lost nothing.
      assert.equal(await readLive('a.txt'), 'a1');
      assert.equal(await readLive('b.txt'), 'b1');
    });

    test('the scheduler backs up changed channels only, then applies retention', async () => {
      const s = services();
      const scheduler = new BackupScheduler({
        store,
        catalog: store.files,
        backups: s.backups,
        retention: s.retention,
        settleJournal: s.settleJournal,
        intervalSeconds: 0,
        logger,
      });
      clock = Date.UTC(2026, 0, 10);
      const count = async () => (await store.files.listBackups(channel.id, { limit: 100 })).items.length;
      const before = await count();
      await put(s, 'a.txt', 'changed for the scheduler');
      clock += 1000;
      await scheduler.runOnce();
      const newest = (await store.files.listBackups(channel.id, { limit: 1 })).items[0]!;
      assert.equal(newest.createdBy, null);
      assert.equal(newest.origin, 'schedule');
      assert.equal(newest.createdAt, clock);
      assert.ok((await count()) <= before + 1);

      clock += 1000;
      await scheduler.runOnce();
      assert.equal(
        (await store.files.listBackups(channel.id, { limit: 1 })).items[0]!.timestamp,
        newest.timestamp,
        'nothing changed: no new backup',
      );

      clock += 1000;
      await s.files.delete(channel, SERVICE, filePath('docs', 'c.txt'));
      clock += 1000;
      await scheduler.runOnce();
      assert.notEqual(
        (await store.files.listBackups(channel.id, { limit: 1 })).items[0]!.timestamp,
        newest.timestamp,
        'a deletion is a change',
      );
      assert.ok((await count()) <= 2, 'retention ran after the backup (keep last 2, none younger than a day)');
    });

    test('a failing catalog is logged and does not stop the scheduler', async () => {
      const broken: FileCatalog = { ...store.files, channelsWithFiles: () => Promise.reject(new Error('database on fire')) } as FileCatalog;
      const s = services();
      const scheduler = new BackupScheduler({
        store,
        catalog: broken,
        backups: s.backups,
        retention: s.retention,
        settleJournal: s.settleJournal,
        intervalSeconds: 0,
        logger,
      });
      const logged = lines.length;
      await scheduler.runOnce();
      assert.ok(lines.slice(logged).some((line) => line.includes('database on fire')));
      await scheduler.stop();
    });

    test('with BACKUP_INTERVAL set, backups happen on their own and stop() is clean', async () => {
      const s = services();
      clock = Date.now();
      await put(s, 'a.txt', `timer ${Math.random()}`);
      clock = Date.now() + 5000; // later than the change: the timer's backup comes after it
      const scheduler = new BackupScheduler({
        store,
        catalog: store.files,
        backups: s.backups,
        retention: new Retention(s.blobs, store.files, { keepLast: 100, keepDays: 100, versionKeepDays: 100 }, logger, now),
        settleJournal: s.settleJournal,
        intervalSeconds: 1,
        logger,
      });
      const newestBefore = (await store.files.listBackups(channel.id, { limit: 1 })).items[0]?.timestamp;
      scheduler.start();
      const deadline = Date.now() + 15_000;
      let newest = newestBefore;
      while (newest === newestBefore && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        newest = (await store.files.listBackups(channel.id, { limit: 1 })).items[0]?.timestamp;
      }
      await scheduler.stop();
      assert.notEqual(newest, newestBefore, 'the timer made a backup');
    });
  });
}
