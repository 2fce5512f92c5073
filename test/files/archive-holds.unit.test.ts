import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { BlobStorage } from '../../src/blobs/blob-storage.ts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { loadConfig } from '../../src/config/config.ts';
import { ArchiveService } from '../../src/files/archive/archive-service.ts';
import { AuditTrail } from '../../src/files/audit-trail.ts';
import { BackupService } from '../../src/files/backup-service.ts';
import { filePath } from '../../src/files/file-path.ts';
import { FileService } from '../../src/files/file-service.ts';
import { readHoldGuard } from '../../src/files/read-hold-guard.ts';
import { Retention } from '../../src/files/retention.ts';
import { KeyedMutex } from '../../src/locks/keyed-mutex.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { Channel } from '../../src/model/channels.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { sha256 } from '../helpers/files.ts';
import { createStorage, type Storage } from '../helpers/test-service.ts';
import { readZip } from '../helpers/zip.ts';

/**
 * A version that retention prunes while an archive streams it: the archive's hold keeps the blob
 * (its record goes, its bytes wait in the deferred deletes) until the stream has ended, and the
 * next run removes it. Without the hold the archive would find the bytes gone midway.
 */
const DAY = 86_400_000;
const ADMIN = { adminId: 'adm_archiver' };
let storage: Storage;
let store: MetadataStore;
let blobs: BlobStorage;
let channel: Channel;
let clock = Date.UTC(2026, 0, 1, 12);
const now = () => clock;
const logger = createLogger('warn', new Writable({ write: (_c, _e, done) => done() }));

before(async () => {
  storage = await createStorage('sqlite');
  store = await openMetadataStore(storage);
  blobs = await openBlobStorage(loadConfig({ DATA_DIR: storage.dataDir, ...storage.env }));
  const tenant = await store.createTenant({ name: 'Holds' });
  channel = { ...(await store.createChannel({ tenantId: tenant.id, name: 'held' })), createdAt: clock - DAY };
});
after(async () => {
  await blobs.close();
  await store.close();
  await storage.drop();
});

test('retention defers the blobs of a channel an archive holds, and removes them once it has ended', async () => {
  const catalog = store.files;
  const audit = new AuditTrail(catalog, logger, now);
  const shared = { blobs, catalog, locks: new KeyedMutex(), audit, now };
  const files = new FileService({ ...shared, maxFileBytes: 64 << 20 });
  const put = (folder: string, name: string, body: Buffer | string) =>
    files.put(channel, ADMIN, filePath(folder, name), Readable.from([Buffer.from(body)]), 'application/octet-stream');
  // The first entry is large, so that the stream left unread stops inside it, before a.txt is opened.
  await put('big', 'first.bin', Buffer.alloc(8 << 20, 1));
  await put('docs', 'a.txt', 'a1');
  clock += 60_000;
  const backup = (await new BackupService(shared).create(channel, ADMIN, 'api')).timestamp;
  clock += 3_600_000;
  await put('docs', 'a.txt', 'a2');
  clock += 3_600_000;
  await put('docs', 'a.txt', 'a3');
  const a1 = (await catalog.backupVersion(channel.id, backup, 'docs', 'a.txt'))!.blobKey!;

  // Ten days on: a1's version is neither the newest of a.txt nor young any more, and only the backup keeps it.
  clock += 10 * DAY;
  const archives = new ArchiveService({ catalog, blobs, audit, holds: store.readHolds, maxPerAdmin: 2, now });
  const archive = await archives.open(channel, ADMIN, { backupTimestamp: backup });
  assert.equal(await store.readHolds.channelReadHeld(channel.id, now()), true);

  // The backup deleted while the archive of it streams.
  assert.equal(await catalog.deleteBackup(channel.id, backup, { now: now(), bypassGovernance: false }), 'deleted');
  const retention = new Retention(
    blobs,
    catalog,
    { keepLast: 0, keepDays: 0, versionKeepDays: 2 },
    logger,
    now,
    readHoldGuard(store.readHolds, store.offsite, undefined, now),
  );
  const keptBefore = (await catalog.channelUsage(channel.id)).kept;
  await retention.apply(channel);
  // Usage (docs/quotas.md) loses the pruned version in retention's own transaction.
  assert.deepEqual((await catalog.channelUsage(channel.id)).kept, { files: keptBefore.files - 1, bytes: keptBefore.bytes - 2 });
  const kept = await catalog.listVersions(channel.id, 'docs', 'a.txt', { limit: 10 });
  assert.equal(
    kept.items.some((v) => v.blobKey === a1),
    false,
    'retention pruned the version',
  );
  assert.ok(await blobs.stat(a1), 'the record is pruned, the bytes the archive reads are not');
  assert.ok((await store.offsite.deferredBlobDeletes(100)).includes(a1), 'they wait in the deferred deletes');

  const chunks: Buffer[] = [];
  for await (const chunk of archive.stream) chunks.push(chunk as Buffer);
  const entries = await readZip(Buffer.concat(chunks));
  assert.equal(entries.get('docs/a.txt')?.sha256, sha256('a1'), 'the archive holds the backup state, read after the prune');

  // Released when the stream closes; the next run removes what waited.
  for (let i = 0; i < 50 && (await store.readHolds.channelReadHeld(channel.id, now())); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(await store.readHolds.channelReadHeld(channel.id, now()), false);
  await retention.apply(channel);
  assert.equal(await blobs.stat(a1), undefined);
  const [event] = (await catalog.listAudit(channel.id, { limit: 1 }, { action: 'archive' })).items;
  assert.equal(event?.result, 'ok');
  assert.equal(event?.backupTimestamp, backup);
});

test('a hold lapses unrenewed, and bounds the archives of one admin', async () => {
  const holds = store.readHolds;
  const hold = (id: string, until: number) => ({ id, channelId: channel.id, adminId: 'adm_bounded', until });
  assert.equal(await holds.takeReadHold(hold('rhd_1', clock + 1000), 2, clock), true);
  assert.equal(await holds.takeReadHold(hold('rhd_2', clock + 1000), 2, clock), true);
  assert.equal(await holds.takeReadHold(hold('rhd_3', clock + 1000), 2, clock), false, 'a third is refused');
  assert.equal(await holds.takeReadHold({ ...hold('rhd_4', clock + 1000), adminId: 'adm_other' }, 2, clock), true, 'another admin is not');
  await holds.releaseReadHold('rhd_4');
  assert.equal(await holds.takeReadHold(hold('rhd_5', clock + 5000), 2, clock + 1000), true, 'past until, two lapsed: a place is free');
  assert.equal(await holds.channelReadHeld(channel.id, clock + 1000), true);
  assert.equal(await holds.channelReadHeld(channel.id, clock + 5000), false);
});
