import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { AuditTrail } from '../../src/files/audit-trail.ts';
import { BackupScheduler } from '../../src/files/backup-scheduler.ts';
import { BackupService } from '../../src/files/backup-service.ts';
import { liveKey } from '../../src/files/blob-layout.ts';
import { filePath } from '../../src/files/file-path.ts';
import { FileService } from '../../src/files/file-service.ts';
import { RestoreService } from '../../src/files/restore-service.ts';
import { Retention } from '../../src/files/retention.ts';
import { KeyedMutex } from '../../src/locks/keyed-mutex.ts';
import { createLogger } from '../../src/logging/logger.ts';
import type { BlobStorage } from '../../src/storage/blob-storage.ts';
import { openBlobStorage } from '../../src/storage/open-blob-storage.ts';
import type { FileCatalog } from '../../src/store/file-catalog-types.ts';
import { openMetadataStore } from '../../src/store/open-metadata-store.ts';
import type { Channel, MetadataStore } from '../../src/store/types.ts';
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
        timestamps.push((await s.backups.create(channel, SERVICE)).timestamp);
        if (day === 1) {
          clock += DAY / 2;
          await s.files.delete(channel, SERVICE, filePath('docs', 'b.txt'));
        }
      }
      clock = Date.UTC(2026, 0, 1) + 5 * DAY + 3_600_000;
      const { blobsRemoved } = await s.retention.apply(channel.id);
      assert.ok(blobsRemoved > 0);

      const kept = (await store.files.listBackups(channel.id, { limit: 100 })).items.map((b) => b.timestamp);
      assert.deepEqual(kept, [timestamps[4], timestamps[3]]);
      const versionsOf = async (name: string) => (await store.files.listVersions(channel.id, 'docs', name, { limit: 100 })).items;
      // Exactly what a kept backup or version needs is kept: every stored blob but the live files'
      // is the bytes of a listed version, and every listed version's bytes are stored.
      const stored = new Set<string>();
      for (const prefix of [`versions/${channel.id}`, `backups/${channel.id}`])
        for await (const blob of blobs.list(prefix)) stored.add(blob.key);
      const needed = new Set<string>();
      for (const name of ['a.txt', 'b.txt', 'c.txt']) for (const v of await versionsOf(name)) if (v.blobKey !== null) needed.add(v.blobKey);
      assert.deepEqual([...stored].sort(), [...needed].sort(), 'removed backups and versions left no bytes behind, kept ones lost none');

      const replaced = (await versionsOf('a.txt')).filter((v) => v.kind === 'replaced');
      assert.ok(replaced.length > 0);
      assert.ok(
        replaced.every((v) => v.createdAt >= clock - 2 * DAY),
        'replaced versions older than VERSION_KEEP_DAYS are gone',
      );
      for (const version of [...(await versionsOf('a.txt')), ...(await versionsOf('c.txt'))]) {
        // A backup's entry without a blob of its own holds the live bytes.
        const body = await s.blobs.get(version.blobKey ?? liveKey(channel.id, 'docs', version.filename));
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
      assert.equal((await s.retention.apply(channel.id)).blobsRemoved, 0, 'a second run finds nothing more to remove');
    });

    test('the scheduler backs up changed channels only, then applies retention', async () => {
      const s = services();
      const scheduler = new BackupScheduler({
        store,
        catalog: store.files,
        backups: s.backups,
        retention: s.retention,
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
