import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { BlobStorage } from '../../src/blobs/blob-storage.ts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { loadConfig } from '../../src/config/config.ts';
import { AppError, isAppError } from '../../src/errors/app-error.ts';
import { metadataUnavailable } from '../../src/errors/common-errors.ts';
import { AuditTrail } from '../../src/files/audit-trail.ts';
import { BackupService } from '../../src/files/backup-service.ts';
import { filePath } from '../../src/files/file-path.ts';
import { FileService } from '../../src/files/file-service.ts';
import { COMMIT_RETRY } from '../../src/files/live-writes.ts';
import { RestoreService } from '../../src/files/restore-service.ts';
import { ScopeRestoreService } from '../../src/files/scope-restore-service.ts';
import { settleJournal } from '../../src/files/write-journal.ts';
import { KeyedMutex } from '../../src/locks/keyed-mutex.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { Channel } from '../../src/model/channels.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { assertChannelConsistent } from '../helpers/consistency.ts';
import { nextSecond, sha256 } from '../helpers/files.ts';
import { createStorage, type Storage } from '../helpers/test-service.ts';

/**
 * Faults injected at every step of a write, on every engine and store: the catalog or the storage
 * handed to the services is the real one wrapped, so the seams exist in this file only. A plan
 * names, per method, what its next calls do: fail before running ('before': nothing happened),
 * fail after running ('after': it happened, but its answer was lost), or run ('ok').
 */
type Step = 'before' | 'after' | 'ok';
/** Per method: its next calls' steps, or those of its calls that `only` picks (the others run). */
type Plan = Partial<Record<string, Step[] | { steps: Step[]; only: (...args: any[]) => boolean }>>;

const injected = () => metadataUnavailable(new Error('injected: the database stopped answering'));
const storageDown = () => new AppError('STORAGE_UNAVAILABLE', 'injected: the object store stopped answering');

/** `real` with the methods named in `plan` failing as planned; each planned step is used once. */
function faulty<T extends object>(real: T, plan: Plan, fault: () => Error): T {
  return new Proxy(real, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      const planned = typeof name === 'string' ? plan[name] : undefined;
      if (typeof value !== 'function') return value;
      // Bound to the real object: classes with private fields refuse a proxy as `this`.
      if (planned === undefined) return value.bind(target);
      const { steps, only } = Array.isArray(planned) ? { steps: planned, only: () => true } : planned;
      return async (...args: unknown[]) => {
        const step = only(...args) ? (steps.shift() ?? 'ok') : 'ok';
        if (step === 'before') throw fault();
        const result = await value.apply(target, args);
        if (step === 'after') throw fault();
        return result;
      };
    },
  });
}

const SERVICE = { adminId: null };
const quiet = createLogger('error', new Writable({ write: (_c, _e, done) => done() }));

for (const setup of FILE_SETUPS) {
  describe(`a write that the database or the storage fails midway changes nothing, or finishes (${setup})`, () => {
    let storage: Storage;
    let store: MetadataStore;
    let blobs: BlobStorage;
    let channel: Channel;
    const names: { folder: string; filename: string }[] = [];

    before(async () => {
      storage = await createStorage(setup);
      store = await openMetadataStore(storage);
      blobs = await openBlobStorage(loadConfig({ DATA_DIR: storage.dataDir, ...storage.env }));
      const tenant = await store.createTenant({ name: 'Faults' });
      channel = await store.createChannel({ tenantId: tenant.id, name: 'faults' });
    });
    after(async () => {
      await blobs.close();
      await store.close();
      await storage.drop();
    });

    const services = (catalogPlan: Plan = {}, blobPlan: Plan = {}) => {
      const catalog = faulty(store.files, catalogPlan, injected);
      const shared = {
        blobs: faulty(blobs, blobPlan, storageDown),
        catalog,
        locks: new KeyedMutex(),
        audit: new AuditTrail(catalog, quiet),
        // The production pauses (COMMIT_RETRY) a tenth as long: the same retries, in the same order.
        commitRetry: { delaysMs: COMMIT_RETRY.delaysMs.map((ms) => ms / 10), windowMs: COMMIT_RETRY.windowMs / 10 },
      };
      const files = new FileService({ ...shared, maxFileBytes: 1 << 20 });
      const backups = new BackupService(shared);
      const restores = new RestoreService(shared);
      return {
        files,
        backups,
        restores,
        scopeRestores: new ScopeRestoreService({ catalog, audit: shared.audit, files, backups, restores }),
      };
    };
    const path = (name: string) => {
      names.push({ folder: 'docs', filename: name });
      return filePath('docs', name);
    };
    const upload = (s: ReturnType<typeof services>, name: string, text: string) =>
      s.files.put(channel, SERVICE, path(name), Readable.from([Buffer.from(text)]), 'text/plain');
    const liveText = async (name: string) => {
      const record = await store.files.getFile(channel.id, 'docs', name);
      if (!record) return undefined;
      const body = await blobs.get(record.blobKey);
      return body && Buffer.concat(await body.toArray()).toString();
    };
    const consistent = (when: string) => assertChannelConsistent(store.files, blobs, channel.id, names, when);
    /** The error a failed write answered, for its code and whether it says what became of the file. */
    const failure = async (write: Promise<unknown>): Promise<AppError> => {
      const error = await write.then(
        () => assert.fail('the write was expected to fail'),
        (e: unknown) => e,
      );
      assert.ok(isAppError(error), String(error));
      return error;
    };
    const versionsOf = async (name: string) => (await store.files.listVersions(channel.id, 'docs', name, { limit: 100 })).items;

    describe('an upload over a file', () => {
      test('the database fails before anything is stored (the journal entry): 503, nothing changed', async () => {
        await upload(services(), 'u1.txt', 'old');
        const error = await failure(upload(services({ journalWrite: ['before'] }), 'u1.txt', 'new'));
        assert.equal(error.code, 'SERVICE_UNAVAILABLE');
        assert.equal(await liveText('u1.txt'), 'old');
        await consistent('journal refused');
      });

      test('the storage fails after the journal entry: its own 503, nothing changed, the entry gone', async () => {
        await upload(services(), 'u2.txt', 'old');
        const error = await failure(upload(services({}, { put: ['before'] }), 'u2.txt', 'new'));
        assert.equal(error.code, 'STORAGE_UNAVAILABLE');
        assert.equal(await liveText('u2.txt'), 'old');
        assert.equal((await versionsOf('u2.txt')).length, 0, 'no version kept for a write that did not happen');
        await consistent('storage refused');
      });

      test('the database fails every commit after the bytes were stored: 503 that says nothing changed, and nothing did', async () => {
        await upload(services(), 'u3.txt', 'old');
        const error = await failure(upload(services({ commitWrite: ['before', 'before', 'before', 'before'] }), 'u3.txt', 'new'));
        assert.equal(error.code, 'SERVICE_UNAVAILABLE');
        assert.deepEqual(error.extra, { outcome: 'unchanged' });
        assert.equal(await liveText('u3.txt'), 'old');
        assert.equal((await versionsOf('u3.txt')).length, 0);
        await consistent('commit refused');
      });

      test('a commit the database fails once is tried again: the write finishes (rolled forward)', async () => {
        await upload(services(), 'u4.txt', 'old');
        const { file } = await upload(services({ commitWrite: ['before'] }), 'u4.txt', 'new');
        assert.equal(file.sha256, sha256('new'));
        assert.equal(await liveText('u4.txt'), 'new');
        assert.deepEqual(
          (await versionsOf('u4.txt')).map((v) => v.sha256),
          [sha256('old')],
        );
        await consistent('commit retried');
      });

      test('a commit whose answer is lost, on every attempt, is found done: success, and the replaced bytes kept once', async () => {
        await upload(services(), 'u5.txt', 'old');
        const plan = { commitWrite: ['after', 'after', 'after', 'after'] as Step[] };
        const { created } = await upload(services(plan), 'u5.txt', 'new');
        assert.equal(created, false);
        assert.equal(await liveText('u5.txt'), 'new');
        assert.deepEqual(
          (await versionsOf('u5.txt')).map((v) => [v.kind, v.sha256]),
          [['replaced', sha256('old')]],
        );
        await consistent('lost answers');
      });

      test('the database stops answering while the write is recorded and undone: 503 that says the outcome is unknown; the journal settles it', async () => {
        await upload(services(), 'u6.txt', 'old');
        const plan = { commitWrite: ['before', 'before', 'before', 'before'] as Step[], abandonWrite: ['before'] as Step[] };
        const error = await failure(upload(services(plan), 'u6.txt', 'new'));
        assert.equal(error.code, 'SERVICE_UNAVAILABLE');
        assert.deepEqual(error.extra, { outcome: 'unknown' });
        assert.equal(await liveText('u6.txt'), 'old', 'never half written: the record still names the old bytes, whole');
        assert.equal((await store.files.pendingWrites()).length, 1, 'the entry waits for the settling');
        assert.equal(await settleJournal({ blobs, catalog: store.files, locks: new KeyedMutex(), logger: quiet }), 1);
        assert.equal(await liveText('u6.txt'), 'old');
        await consistent('settled');
      });

      test('the stored bytes cannot be removed while undoing: 503 nothing changed; the given-up entry is settled later', async () => {
        await upload(services(), 'u7.txt', 'old');
        const error = await failure(
          upload(services({ commitWrite: ['before', 'before', 'before', 'before'] }, { delete: ['before'] }), 'u7.txt', 'new'),
        );
        assert.deepEqual(error.extra, { outcome: 'unchanged' });
        assert.equal(await liveText('u7.txt'), 'old');
        const [entry] = await store.files.pendingWrites();
        assert.ok(entry?.abandonedAt, 'the entry is marked given up: no commit can end it any more');
        await assert.rejects(
          store.files.commitWrite({
            file: { ...(await store.files.getFile(channel.id, 'docs', 'u7.txt'))!, blobKey: entry.blobKey!, updatedAt: Date.now() },
            writeId: entry.id,
            replaces: (await store.files.getFile(channel.id, 'docs', 'u7.txt'))!.blobKey,
            keptVersionId: 'ver_never',
            publicCopy: false,
          }),
          (e: unknown) => isAppError(e) && e.code === 'SERVICE_UNAVAILABLE' && e.extra?.outcome === 'unchanged',
          'a late commit of a given-up write is refused',
        );
        assert.equal(await settleJournal({ blobs, catalog: store.files, locks: new KeyedMutex(), logger: quiet }), 1);
        await consistent('given up, then settled');
      });

      test('a new file: the commit fails, nothing is created; fails once, it is created', async () => {
        await failure(upload(services({ commitWrite: ['before', 'before', 'before', 'before'] }), 'n1.txt', 'new'));
        assert.equal(await liveText('n1.txt'), undefined);
        assert.equal((await upload(services({ commitWrite: ['before'] }), 'n2.txt', 'new')).created, true);
        assert.equal(await liveText('n2.txt'), 'new');
        await consistent('new files');
      });
    });

    describe('a restore', () => {
      let backup: string;
      before(async () => {
        const s = services();
        for (const name of ['r1.txt', 'r2.txt', 'r3.txt', 'r4.txt']) await upload(s, name, `backed up ${name}`);
        await nextSecond();
        backup = (await s.backups.create(channel, SERVICE, 'schedule')).timestamp;
        for (const name of ['r1.txt', 'r2.txt', 'r3.txt', 'r4.txt']) await upload(s, name, `changed ${name}`);
      });
      const restore = (s: ReturnType<typeof services>, name: string) =>
        s.restores.restore(channel, SERVICE, { folder: 'docs', filename: name }, { backupTimestamp: backup });

      test('the storage fails to copy the source: 503, nothing changed', async () => {
        const error = await failure(restore(services({}, { copy: ['before'] }), 'r1.txt'));
        assert.equal(error.code, 'STORAGE_UNAVAILABLE');
        assert.equal(await liveText('r1.txt'), 'changed r1.txt');
        await consistent('copy refused');
      });

      test('every commit fails: 503 nothing changed; once: restored; its answer lost: restored', async () => {
        const error = await failure(restore(services({ commitWrite: ['before', 'before', 'before', 'before'] }), 'r2.txt'));
        assert.deepEqual(error.extra, { outcome: 'unchanged' });
        assert.equal(await liveText('r2.txt'), 'changed r2.txt');
        assert.equal((await restore(services({ commitWrite: ['before'] }), 'r2.txt')).changed, true);
        assert.equal(await liveText('r2.txt'), 'backed up r2.txt');
        assert.equal((await restore(services({ commitWrite: ['after'] }), 'r3.txt')).changed, true);
        assert.equal(await liveText('r3.txt'), 'backed up r3.txt');
        await consistent('restores');
      });
    });

    describe('a delete', () => {
      test('every commit fails: 503 nothing changed; once: deleted; its answer lost: deleted, one version kept', async () => {
        const s = services();
        for (const name of ['d1.txt', 'd2.txt', 'd3.txt']) await upload(s, name, `to delete ${name}`);
        const remove = (plan: Plan, name: string) => services(plan).files.delete(channel, SERVICE, path(name));
        const error = await failure(remove({ commitDelete: ['before', 'before', 'before', 'before'] }, 'd1.txt'));
        assert.deepEqual(error.extra, { outcome: 'unchanged' });
        assert.equal(await liveText('d1.txt'), 'to delete d1.txt');
        await remove({ commitDelete: ['before'] }, 'd2.txt');
        assert.equal(await liveText('d2.txt'), undefined);
        await remove({ commitDelete: ['after', 'after', 'after', 'after'] }, 'd3.txt');
        assert.equal(await liveText('d3.txt'), undefined);
        assert.deepEqual(
          (await versionsOf('d3.txt')).map((v) => v.kind),
          ['deleted'],
        );
        await consistent('deletes');
      });
    });

    describe('a folder restore', () => {
      test('one file whose commit keeps failing stops the restore there: the files done stay done, that one unchanged, all consistent', async () => {
        const s = services();
        const folder = 'scope';
        const scoped = ['s1.txt', 's2.txt', 's3.txt'];
        for (const name of scoped) {
          names.push({ folder, filename: name });
          await s.files.put(channel, SERVICE, filePath(folder, name), Readable.from([Buffer.from(`backed up ${name}`)]), 'text/plain');
        }
        await nextSecond();
        const backup = (await s.backups.create(channel, SERVICE, 'schedule')).timestamp;
        for (const name of scoped)
          await s.files.put(channel, SERVICE, filePath(folder, name), Readable.from([Buffer.from(`changed ${name}`)]), 'text/plain');
        await nextSecond();
        const s2Fails = {
          steps: ['before', 'before', 'before', 'before'] as Step[],
          only: (commit: { file: { filename: string } }) => commit.file.filename === 's2.txt',
        };
        const failing = services({ commitWrite: s2Fails });
        const error = await failure(
          failing.scopeRestores.restore(channel, SERVICE, { folder, backupTimestamp: backup, dryRun: false, delete: false }),
        );
        assert.equal(error.code, 'SERVICE_UNAVAILABLE');
        const texts = await Promise.all(
          scoped.map(async (name) => {
            const record = await store.files.getFile(channel.id, folder, name);
            return Buffer.concat(await (await blobs.get(record!.blobKey))!.toArray()).toString();
          }),
        );
        // The three are restored side by side (FILE_CONCURRENCY): the other two finish.
        assert.deepEqual(texts, ['backed up s1.txt', 'changed s2.txt', 'backed up s3.txt']);
        await consistent('scope restore stopped');
        // Run again, the faults gone: it does what is left.
        await nextSecond();
        await services().scopeRestores.restore(channel, SERVICE, { folder, backupTimestamp: backup, dryRun: false, delete: false });
        await consistent('scope restore finished');
      });
    });
  });
}
