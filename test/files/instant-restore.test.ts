import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BlobStorage } from '../../src/blobs/blob-storage.ts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { loadConfig } from '../../src/config/config.ts';
import { isAppError } from '../../src/errors/app-error.ts';
import { AuditTrail } from '../../src/files/audit-trail.ts';
import { BackupService } from '../../src/files/backup-service.ts';
import { ChannelChanges } from '../../src/files/channel-changes.ts';
import { filePath } from '../../src/files/file-path.ts';
import { FileService } from '../../src/files/file-service.ts';
import { RestoreService } from '../../src/files/restore-service.ts';
import { Retention } from '../../src/files/retention.ts';
import { ScopeRestoreService } from '../../src/files/scope-restore-service.ts';
import { KeyedMutex } from '../../src/locks/keyed-mutex.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { Channel } from '../../src/model/channels.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient } from '../helpers/files.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const DAY = 86_400_000;
const SERVICE = { adminId: null };
const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** Rejects with an AppError of this code whose message matches. */
async function rejectsWith(promise: Promise<unknown>, code: string, message?: RegExp): Promise<string> {
  let caught: unknown;
  await promise.then(
    () => {},
    (error: unknown) => {
      caught = error;
    },
  );
  assert.ok(isAppError(caught), `expected AppError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (message) assert.match(caught.message, message);
  return caught.message;
}

for (const setup of FILE_SETUPS) {
  describe(`the channel at any instant: services (${setup})`, () => {
    let storage: Storage;
    let blobs: BlobStorage;
    let store: MetadataStore;
    let channel: Channel;
    let clock: number;
    let backupT1: string;
    const now = () => clock;
    const logger = createLogger('warn', new Writable({ write: (_c, _e, done) => done() }));

    const services = () => {
      const catalog = store.files;
      const audit = new AuditTrail(catalog, logger, now);
      const shared = { blobs, catalog, locks: new KeyedMutex(), audit, now };
      const files = new FileService({ ...shared, maxFileBytes: 1 << 20 });
      const backups = new BackupService(shared);
      const restores = new RestoreService(shared);
      return {
        files,
        restores,
        backups,
        scope: new ScopeRestoreService({ catalog, audit, files, backups, restores, now }),
        changes: new ChannelChanges(catalog, now),
        retention: new Retention(blobs, catalog, { keepLast: 0, keepDays: 0, versionKeepDays: 2 }, logger, now),
      };
    };
    const put = (s: ReturnType<typeof services>, path: string, text: string) => {
      const [folder, name] = path.split('/') as [string, string];
      return s.files.put(channel, SERVICE, filePath(folder, name), Readable.from([Buffer.from(text)]), 'text/plain');
    };
    const tree = async () => {
      const s = services();
      const result: Record<string, string> = {};
      for (const file of await store.files.allFiles(channel.id)) {
        const { body } = await s.files.get(channel, filePath(file.folder, file.filename));
        result[`${file.folder}/${file.filename}`] = Buffer.concat(await body.toArray()).toString();
      }
      return result;
    };

    // The history: T0 a1 and docs/x; T1 a2, b1, then a backup; T2 b deleted; T3 a3, other/y.
    const T0 = Date.UTC(2026, 0, 1, 12);
    const T1 = T0 + 3_600_000;
    const T2 = T1 + 3_600_000;
    const T3 = T2 + 3_600_000;

    before(async () => {
      storage = await createStorage(setup);
      store = await openMetadataStore(storage);
      blobs = await openBlobStorage(loadConfig({ DATA_DIR: storage.dataDir, ...storage.env }));
      const tenant = await store.createTenant({ name: 'Instants' });
      // Created, on this test's clock, before its history starts (the store stamps the real time).
      channel = { ...(await store.createChannel({ tenantId: tenant.id, name: 'history' })), createdAt: T0 - DAY };
      const s = services();
      clock = T0;
      await put(s, 'docs/a.txt', 'a1');
      await put(s, 'docs/x.txt', 'x, never changed');
      clock = T1;
      await put(s, 'docs/a.txt', 'a2');
      await put(s, 'docs/b.txt', 'b1');
      clock = T1 + 60_000;
      backupT1 = (await s.backups.create(channel, SERVICE, 'schedule')).timestamp;
      clock = T2;
      await s.files.delete(channel, SERVICE, filePath('docs', 'b.txt'));
      clock = T3;
      await put(s, 'docs/a.txt', 'a3');
      await put(s, 'other/y.txt', 'y, after everything');
      clock = T3 + 60_000;
    });
    after(async () => {
      await blobs.close();
      await store.close();
      await storage.drop();
    });

    test('a file restored at an instant between two writes gets the bytes live then; the audit names the version, no backup', async () => {
      const s = services();
      const outcome = await s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'a.txt' }, { at: iso(T0 + 1000) });
      assert.equal(outcome.changed, true);
      assert.equal((await tree())['docs/a.txt'], 'a1');
      assert.match(outcome.source!.id, /^ver_/);
      const [event] = (await store.files.listAudit(channel.id, { limit: 1 }, { action: 'restore' })).items;
      assert.equal(event!.result, 'ok');
      assert.equal(event!.backupTimestamp, null);
      assert.equal(event!.versionId, outcome.source!.id);
      assert.equal(event!.at, iso(T0 + 1000), 'the instant asked for, beside the version it found');

      // At the very millisecond of a write, the write is in the state.
      await s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'a.txt' }, { at: iso(T1) });
      assert.equal((await tree())['docs/a.txt'], 'a2');
      // Deleted at T2: restored from its deleted version at an instant before.
      await s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'b.txt' }, { at: '2026-01-01T13:30:00+00:00' });
      assert.equal((await tree())['docs/b.txt'], 'b1');
      // Unchanged since T0: the live bytes are its state; nothing to do, nothing named.
      const same = await s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'x.txt' }, { at: iso(T1) });
      assert.equal(same.changed, false);
      assert.equal(same.source, null);
      // Not there yet at T0.
      await rejectsWith(
        s.restores.restore(channel, SERVICE, { folder: 'other', filename: 'y.txt' }, { at: iso(T0) }),
        'BACKUP_FILE_NOT_FOUND',
        /did not exist at 2026-01-01T12:00:00.000Z/,
      );
    });

    test('changes between two instants, and from an instant to now', async () => {
      const s = services();
      const between = await s.changes.between(channel, { fromAt: iso(T1 + 1), toAt: iso(T3 + 1) }, { limit: 100 });
      assert.deepEqual(
        between.items.map((c) => [`${c.folder}/${c.filename}`, c.change]),
        [
          ['docs/a.txt', 'changed'],
          ['docs/b.txt', 'deleted'],
          ['other/y.txt', 'added'],
        ],
      );
      const sinceT0 = await s.changes.between(channel, { fromAt: iso(T0 + 1), toAt: iso(T1 + 1), folder: 'docs' }, { limit: 100 });
      assert.deepEqual(
        sinceT0.items.map((c) => [c.filename, c.change]),
        [
          ['a.txt', 'changed'],
          ['b.txt', 'added'],
        ],
      );
      await rejectsWith(
        s.changes.between(channel, { fromAt: iso(T3), toAt: iso(T1) }, { limit: 10 }),
        'VALIDATION_FAILED',
        /^toAt \(2026-01-01T13:00:00.000Z\) is older than fromAt \(2026-01-01T15:00:00.000Z\); swap them$/,
      );
      await rejectsWith(s.changes.between(channel, { toAt: iso(T1) }, { limit: 10 }), 'VALIDATION_FAILED', /exactly one of from/);
      await rejectsWith(
        s.changes.between(channel, { fromAt: iso(T1), from: '20260101_120000' }, { limit: 10 }),
        'VALIDATION_FAILED',
        /exactly one of from/,
      );
    });

    test('changes between a backup and an instant, either way round: positions in one history', async () => {
      const s = services();
      const list = async (request: Parameters<typeof s.changes.between>[1]) =>
        (await s.changes.between(channel, request, { limit: 100 })).items.map((c) => `${c.change} ${c.folder}/${c.filename}`);
      const sinceBackup = ['changed docs/a.txt', 'deleted docs/b.txt', 'added other/y.txt'];
      assert.deepEqual(await list({ from: backupT1, toAt: iso(T3 + 1) }), sinceBackup);
      assert.deepEqual(await list({ fromAt: iso(T1 + 60_000), toAt: iso(T3 + 1) }), sinceBackup, 'the instant of the backup is its state');
      assert.deepEqual(await list({ fromAt: iso(T0 + 1), to: backupT1, folder: 'docs' }), ['changed docs/a.txt', 'added docs/b.txt']);
      assert.deepEqual(await list({ from: backupT1, toAt: iso(T1 + 60_000) }), [], 'one state, named both ways');

      // An end before the start is refused, named as the caller named it, whichever forms they take.
      await rejectsWith(
        s.changes.between(channel, { from: backupT1, toAt: iso(T0 + 1) }, { limit: 10 }),
        'VALIDATION_FAILED',
        new RegExp(`^toAt \\(2026-01-01T12:00:00.001Z\\) is older than from \\(${backupT1}\\); swap them$`),
      );
      await rejectsWith(
        s.changes.between(channel, { fromAt: iso(T3 + 1), to: backupT1 }, { limit: 10 }),
        'VALIDATION_FAILED',
        new RegExp(`^to \\(${backupT1}\\) is older than fromAt \\(2026-01-01T15:00:00.001Z\\)`),
      );
      const names = { from: '--from', fromAt: '--from-at', to: '--to', toAt: '--to-at' };
      await rejectsWith(
        s.changes.between(channel, { from: backupT1, toAt: iso(T0 + 1), names }, { limit: 10 }),
        'VALIDATION_FAILED',
        /^--to-at \(.*\) is older than --from \(/,
      );
      // Within one state, the names decide: an instant a minute before the backup's second is before it.
      await rejectsWith(s.changes.between(channel, { from: backupT1, toAt: iso(T1 + 1) }, { limit: 10 }), 'VALIDATION_FAILED', /swap/);
    });

    test('a folder and the whole channel restored to an instant', async () => {
      const s = services();
      clock += 1000;
      const whole = await s.scope.restore(channel, SERVICE, { at: iso(T3 + 1), dryRun: false, delete: true });
      assert.ok(whole.safetyBackup, 'something changed: the undo was taken first');
      assert.deepEqual(await tree(), { 'docs/a.txt': 'a3', 'docs/x.txt': 'x, never changed', 'other/y.txt': 'y, after everything' });

      const plan = await s.scope.restore(channel, SERVICE, { folder: 'docs', at: iso(T1 + 1), dryRun: true, delete: true });
      assert.deepEqual(plan.changes, [
        { folder: 'docs', filename: 'a.txt', action: 'replace' },
        { folder: 'docs', filename: 'b.txt', action: 'create' },
      ]);
      assert.equal(plan.unchanged, 1);
      clock += 1000;
      await s.scope.restore(channel, SERVICE, { folder: 'docs', at: iso(T1 + 1), dryRun: false, delete: true });
      const [event] = (await store.files.listAudit(channel.id, { limit: 1 }, { action: 'restore', filename: undefined, folder: 'docs' }))
        .items;
      assert.equal(event?.filename, null, "the folder restore's own event comes last");
      assert.deepEqual(event?.operation && { scope: event.operation.scope, at: event.operation.at }, { scope: 'folder', at: iso(T1 + 1) });
      assert.equal(event?.backupTimestamp, null);
      assert.equal(event?.at, iso(T1 + 1));
      // Each file it restored says the instant too, not only the version that instant found.
      const files = (await store.files.listAudit(channel.id, { limit: 10 }, { operationId: event!.operationId! })).items.filter(
        (e) => e.action === 'restore' && e.filename !== null,
      );
      assert.deepEqual(files.map((e) => [e.filename, e.at]).sort(), [
        ['a.txt', iso(T1 + 1)],
        ['b.txt', iso(T1 + 1)],
      ]);
      assert.deepEqual(await tree(), {
        'docs/a.txt': 'a2',
        'docs/b.txt': 'b1',
        'docs/x.txt': 'x, never changed',
        'other/y.txt': 'y, after everything',
      });
      clock += 1000;
      await s.scope.restore(channel, SERVICE, { at: iso(T2 + 1), dryRun: false, delete: true });
      assert.deepEqual(await tree(), { 'docs/a.txt': 'a2', 'docs/x.txt': 'x, never changed' });
      await rejectsWith(
        s.scope.restore(channel, SERVICE, { at: iso(T1), backupTimestamp: '20260101_120000', dryRun: true, delete: false }),
        'VALIDATION_FAILED',
      );
    });

    test('an instant before the channel was created is INSTANT_BEFORE_CHANNEL for every restore, dry runs too, naming the creation; changes may start there', async () => {
      const s = services();
      const unchanged = await tree();
      const before = iso(T0 - DAY - 1);
      const named = new RegExp(`before the channel was created \\(${iso(T0 - DAY).replaceAll('.', '\\.')}\\)`);
      await rejectsWith(
        s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'a.txt' }, { at: before }),
        'INSTANT_BEFORE_CHANNEL',
        named,
      );
      await rejectsWith(
        s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'a.txt' }, { at: '1970-01-01T00:00:00Z' }),
        'INSTANT_BEFORE_CHANNEL',
      );
      for (const folder of ['docs', undefined]) {
        for (const dryRun of [true, false]) {
          await rejectsWith(
            s.scope.restore(channel, SERVICE, { folder, at: before, dryRun, delete: true }),
            'INSTANT_BEFORE_CHANNEL',
            named,
          );
        }
      }
      assert.deepEqual(await tree(), unchanged, 'nothing was restored or deleted');
      // Its creation itself is an instant of it: the empty channel, nothing to restore a file from.
      await rejectsWith(
        s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'a.txt' }, { at: iso(T0 - DAY) }),
        'BACKUP_FILE_NOT_FOUND',
      );
      const everything = await s.changes.between(channel, { fromAt: '1970-01-01T00:00:00Z' }, { limit: 100 });
      assert.deepEqual(
        everything.items.map((c) => `${c.change} ${c.folder}/${c.filename}`),
        Object.keys(unchanged).map((path) => `added ${path}`),
      );
    });

    test('refused: a malformed instant, one in the future, both a backup and an instant', async () => {
      const s = services();
      const file = { folder: 'docs', filename: 'a.txt' };
      await rejectsWith(s.restores.restore(channel, SERVICE, file, { at: '2026-01-01 12:00' }), 'VALIDATION_FAILED', /RFC 3339/);
      await rejectsWith(s.restores.restore(channel, SERVICE, file, { at: '2026-02-30T12:00:00Z' }), 'VALIDATION_FAILED', /RFC 3339/);
      await rejectsWith(s.restores.restore(channel, SERVICE, file, { at: iso(clock + 1) }), 'VALIDATION_FAILED', /future/);
      await rejectsWith(
        s.restores.restore(channel, SERVICE, file, { at: iso(T1), backupTimestamp: '20260101_120000' }),
        'VALIDATION_FAILED',
        /backupTimestamp and at/,
      );
    });

    test('instants whose state retention pruned are INSTANT_NOT_RETAINED, naming the oldest instant still held', async () => {
      const s = services();
      clock = T3 + 10 * DAY;
      // Written now: a's older versions are no longer the newest, so retention takes them.
      await put(s, 'docs/a.txt', 'a, ten days later');
      await s.retention.apply(channel);
      const message = await rejectsWith(
        s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'a.txt' }, { at: iso(T0 + 1000) }),
        'INSTANT_NOT_RETAINED',
      );
      const oldest = /oldest retained instant is (\S+)$/.exec(message)?.[1];
      assert.ok(oldest, message);
      const oldestAt = Date.parse(oldest);
      assert.ok(oldestAt > T0 + 1000 && oldestAt <= clock, `the oldest retained instant ${oldest} is after the one asked`);
      await rejectsWith(s.changes.between(channel, { fromAt: iso(T0 + 1000) }, { limit: 10 }), 'INSTANT_NOT_RETAINED');
      // From the oldest retained instant on, states are whole again.
      await s.restores.restore(channel, SERVICE, { folder: 'docs', filename: 'a.txt' }, { at: oldest });
      const live = await tree();
      assert.equal(typeof live['docs/a.txt'], 'string');
    });
  });

  describe(`the channel at any instant: HTTP (${setup})`, () => {
    let svc: TestService;
    let files: FilesClient;
    let channelRef: string;
    let createdAt: number;
    const scopeRestore = (path: string, query: string) =>
      request(svc.baseUrl, `/api/channels/${encodeURIComponent(channelRef)}${path}/restore${query}`, {
        method: 'POST',
        headers: files.auth,
      });
    const changes = (query: string) =>
      request(svc.baseUrl, `/api/channels/${encodeURIComponent(channelRef)}/changes${query}`, { headers: files.auth });
    const text = async (folder: string, name: string) => (await files.get(folder, name)).body;
    /** An instant strictly between the writes around it: ticks are in milliseconds. */
    const instant = async () => {
      await sleep(5);
      const at = new Date().toISOString();
      await sleep(5);
      return encodeURIComponent(at);
    };

    before(async () => {
      svc = await startTestService(setup, { transport: 'socket' });
      const fixture = await createTenantFixture(svc.service.store, 'Instant');
      channelRef = fixture.channel.id;
      createdAt = fixture.channel.createdAt;
      files = new FilesClient(svc.baseUrl, channelRef, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    });
    after(() => svc.close());

    test('restore ?at=, folder and channel restore ?at=, changes ?fromAt=&toAt=', async () => {
      assert.equal((await files.put('docs', 'a.txt', 'one')).status, 201);
      const first = await instant();
      assert.equal((await files.put('docs', 'a.txt', 'two')).status, 200);
      assert.equal((await files.put('docs', 'b.txt', 'bee')).status, 201);
      const second = await instant();

      const restored = await files.restore('docs', 'a.txt', `?at=${first}`);
      assert.equal(restored.status, 200, restored.body);
      assert.equal(await text('docs', 'a.txt'), 'one');

      const diff = await changes(`?fromAt=${first}&toAt=${second}`);
      assert.equal(diff.status, 200, diff.body);
      assert.deepEqual(
        diff.json().items.map((c: { filename: string; change: string }) => [c.filename, c.change]),
        [
          ['a.txt', 'changed'],
          ['b.txt', 'added'],
        ],
      );

      const folder = await scopeRestore('/folders/docs', `?at=${second}`);
      assert.equal(folder.status, 200, folder.body);
      assert.equal(await text('docs', 'a.txt'), 'two');
      const channel = await scopeRestore('', `?at=${first}&delete=true`);
      assert.equal(channel.status, 200, channel.body);
      assert.equal(await text('docs', 'a.txt'), 'one');
      assert.equal((await files.get('docs', 'b.txt')).status, 404);
    });

    test('changes from a backup to an instant and back (400 naming the parameters); one plan tag for two spellings of an instant', async () => {
      // A channel of its own: the restores above took safety backups of theirs up to a second ahead of the clock.
      const fixture = await createTenantFixture(svc.service.store, 'Mixed');
      const own = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
      const changes = (query: string) => request(svc.baseUrl, `/api/channels/${fixture.channel.id}/changes${query}`, { headers: own.auth });
      const scopeRestore = (path: string, query: string) =>
        request(svc.baseUrl, `/api/channels/${fixture.channel.id}${path}/restore${query}`, { method: 'POST', headers: own.auth });
      assert.equal((await own.put('docs', 'a.txt', 'before the backup')).status, 201);
      const backup = await own.backup();
      assert.equal(backup.status, 201, backup.body);
      const timestamp = backup.json().timestamp as string;
      assert.equal((await own.put('docs', 'c.txt', 'after the backup')).status, 201);
      const later = await instant();

      const mixed = await changes(`?from=${timestamp}&toAt=${later}`);
      assert.equal(mixed.status, 200, mixed.body);
      assert.deepEqual(
        mixed.json().items.map((c: { filename: string; change: string }) => `${c.change} ${c.filename}`),
        ['added c.txt'],
      );
      const inverted = await changes(`?fromAt=${later}&to=${timestamp}`);
      assertProblem(inverted, 400, 'VALIDATION_FAILED');
      assert.match(inverted.json().detail, new RegExp(`^to \\(${timestamp}\\) is older than fromAt \\(.+\\); swap them$`));

      const at = decodeURIComponent(later);
      const tags = await Promise.all(
        [at, at.replace('Z', '+00:00')].map(async (spelling) => {
          const plan = await scopeRestore('/folders/docs', `?at=${encodeURIComponent(spelling)}&dryRun=true`);
          assert.equal(plan.status, 200, plan.body);
          return plan.headers.etag;
        }),
      );
      assert.equal(tags[0], tags[1]);
    });

    test('400: malformed, in the future, both a backup and an instant; 404 for a file that did not exist yet', async () => {
      assertProblem(await files.restore('docs', 'a.txt', '?at=yesterday'), 400, 'VALIDATION_FAILED');
      assert.match((await files.restore('docs', 'a.txt', '?at=yesterday')).json().detail, /date-time/);
      const future = encodeURIComponent(new Date(Date.now() + DAY).toISOString());
      assertProblem(await files.restore('docs', 'a.txt', `?at=${future}`), 400, 'VALIDATION_FAILED');
      assertProblem(await scopeRestore('', `?at=${future}&dryRun=true`), 400, 'VALIDATION_FAILED');
      assertProblem(await changes(`?fromAt=${future}`), 400, 'VALIDATION_FAILED');
      const past = encodeURIComponent(new Date().toISOString());
      assertProblem(await files.restore('docs', 'a.txt', `?at=${past}&backupTimestamp=20260101_000000`), 400, 'VALIDATION_FAILED');
      assertProblem(await scopeRestore('/folders/docs', `?at=${past}&backupTimestamp=20260101_000000`), 400, 'VALIDATION_FAILED');
      assertProblem(await changes(`?fromAt=${past}&from=20260101_000000`), 400, 'VALIDATION_FAILED');
      assertProblem(await changes(`?fromAt=${past}&toAt=${past}&to=20260101_000000`), 400, 'VALIDATION_FAILED');
      // Nothing pruned: the channel's empty state before its first write is held, and a.txt was not in it.
      const early = await files.restore('docs', 'a.txt', `?at=${encodeURIComponent(iso(createdAt))}`);
      assertProblem(early, 404, 'BACKUP_FILE_NOT_FOUND');
      // Before the channel existed: a mistyped year, never a state to restore.
      const typo = await files.restore('docs', 'a.txt', '?at=2000-01-01T00:00:00Z');
      assertProblem(typo, 400, 'INSTANT_BEFORE_CHANNEL');
      assert.equal(typo.json().channelCreatedAt, iso(createdAt));
      assertProblem(await scopeRestore('', '?at=1970-01-01T00:00:00Z&dryRun=true&delete=true'), 400, 'INSTANT_BEFORE_CHANNEL');
      assert.equal((await changes('?fromAt=1970-01-01T00:00:00Z')).status, 200, 'changes may start before the channel');
    });
  });
}
