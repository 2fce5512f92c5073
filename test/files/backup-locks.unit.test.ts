import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { BlobStorage } from '../../src/blobs/blob-storage.ts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { loadConfig } from '../../src/config/config.ts';
import { isAppError } from '../../src/errors/app-error.ts';
import { AuditTrail } from '../../src/files/audit-trail.ts';
import { BackupLocks } from '../../src/files/backup-locks.ts';
import { BackupService } from '../../src/files/backup-service.ts';
import { filePath } from '../../src/files/file-path.ts';
import { Retention } from '../../src/files/retention.ts';
import { createLogger } from '../../src/logging/logger.ts';
import type { Channel } from '../../src/model/channels.ts';
import type { MetadataStore } from '../../src/model/metadata-store.ts';
import { AdminApi } from '../administration/admin-client.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { runCli } from '../helpers/cli.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { createStorage, type Storage, startTestService, storageEnv, type TestService } from '../helpers/test-service.ts';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const quiet = () =>
  createLogger(
    'warn',
    new Writable({
      write: (_chunk, _encoding, done) => done(),
    }),
  );

/**
 * Locked backups (docs/backup-locks.md), on both engines: over HTTP as an owner and a sub-admin,
 * through the operator's CLI, under retention with a clock moved past the lock's date, and across
 * a restart of the service.
 */
for (const engine of ENGINES) {
  describe(`locked backups (${engine})`, () => {
    let storage: Storage;
    let svc: TestService;
    let store: MetadataStore;
    let home: TenantFixture;
    let owner: AdminApi;
    let sub: AdminApi;
    let subId: string;
    // Each backup of these tests is named by a second of its own, far from the others'.
    let second = Date.now() - 400 * DAY;
    let backupsPath = '';

    before(async () => {
      storage = await createStorage(engine);
      svc = await startTestService(engine, { storage });
      store = svc.service.store;
      home = await createTenantFixture(store, 'Locks');
      const domain = svc.config.auth.domains[0]!;
      owner = new AdminApi(svc.baseUrl, home.ownerWallet, domain);
      const member = await createMemberAdmin(store, home, {
        permissions: ['files:read', 'backups:create', 'backups:lock', 'backups:delete', 'audit:read'],
        channels: [home.channel],
      });
      subId = member.admin.id;
      backupsPath = `/api/channels/${home.channel.id}/backups`;
      sub = new AdminApi(svc.baseUrl, member.wallet, domain);
    });
    after(async () => {
      await svc.close();
      await storage.drop();
    });

    const put = (channel: Channel, name: string, text: string) =>
      svc.service.files.files.put(
        channel,
        { adminId: home.owner.id },
        filePath('docs', name),
        Readable.from([Buffer.from(text)]),
        'text/plain',
      );
    const backup = async (channel: Channel = home.channel) => {
      second += 1000;
      return (await svc.service.files.backups.create(channel, { adminId: home.owner.id }, 'api', second)).timestamp;
    };
    const lockPath = (ts: string) => `${backupsPath}/${ts}/lock`;
    const lockOf = async (ts: string) => {
      const listed = await owner.get(`${backupsPath}?limit=1000`);
      assert.equal(listed.status, 200, listed.body);
      const item = listed.json().items.find((b: { timestamp: string }) => b.timestamp === ts);
      return item === undefined ? 'gone' : item.lock;
    };
    const cli = (...args: string[]) => runCli(args, storageEnv(storage));

    test('a backup is locked, put under legal hold, listed with its lock, and deleted once free; each step audited', async () => {
      const ts = await backup();
      const until = iso(Date.now() + 10 * DAY);
      const locked = await sub.send('PUT', lockPath(ts), { mode: 'governance', until });
      assert.equal(locked.status, 200, locked.body);
      assert.equal(locked.json().timestamp, ts);
      assert.deepEqual(
        { ...locked.json().lock, lockedAt: 'x' },
        { mode: 'governance', until, legalHold: false, lockedBy: subId, lockedAt: 'x' },
      );
      assert.deepEqual(await lockOf(ts), locked.json().lock, 'GET lists the lock');

      assertProblem(await sub.delete(`${backupsPath}/${ts}`), 409, 'BACKUP_LOCKED');
      const held = await sub.send('PUT', lockPath(ts), { legalHold: true });
      assert.equal(held.status, 200, held.body);
      assert.equal(held.json().lock.legalHold, true);
      assert.equal(held.json().lock.mode, 'governance', 'a legal hold alone leaves the lock as it was');

      // The owner lifts the governance lock; the hold stays, and still refuses the delete, the owner's too.
      const lifted = await owner.delete(lockPath(ts));
      assert.equal(lifted.status, 200, lifted.body);
      assert.equal(lifted.json().lock.mode, null);
      assert.equal(lifted.json().lock.legalHold, true);
      const refused = await owner.delete(`${backupsPath}/${ts}`);
      assertProblem(refused, 409, 'BACKUP_LOCKED');
      assert.match(refused.json().detail, /legal hold/);

      assertProblem(await sub.send('PUT', lockPath(ts), { legalHold: false }), 403, 'OWNER_REQUIRED');
      const released = await owner.send('PUT', lockPath(ts), { legalHold: false });
      assert.equal(released.status, 200, released.body);
      assert.equal(released.json().lock, null);

      const deleted = await sub.delete(`${backupsPath}/${ts}`);
      assert.equal(deleted.status, 204, deleted.body);
      assert.equal(await lockOf(ts), 'gone');
      assertProblem(await sub.delete(`${backupsPath}/${ts}`), 404, 'BACKUP_NOT_FOUND');

      const deletes = (await owner.get(`/api/channels/${home.channel.id}/audit?action=backup.delete&limit=1000`)).json().items;
      const mine = deletes
        .filter((e: { backupTimestamp: string }) => e.backupTimestamp === ts)
        .map((e: { result: string; code: string | null }) => [e.result, e.code]);
      assert.deepEqual(mine, [
        ['refused', 'BACKUP_NOT_FOUND'],
        ['ok', null],
        ['refused', 'BACKUP_LOCKED'],
        ['refused', 'BACKUP_LOCKED'],
      ]);
      const locks = (await owner.get(`/api/channels/${home.channel.id}/audit?action=backup.lock&limit=1000`)).json().items;
      assert.equal(
        locks.filter((e: { backupTimestamp: string; result: string }) => e.backupTimestamp === ts && e.result === 'ok').length,
        4,
      );
    });

    test('a governance lock: a sub-admin extends it only; an owner shortens or lifts it; a refusal changes nothing', async () => {
      const ts = await backup();
      const in10 = iso(Date.now() + 10 * DAY);
      assert.equal((await sub.send('PUT', lockPath(ts), { mode: 'governance', until: in10 })).status, 200);
      assertProblem(await sub.send('PUT', lockPath(ts), { mode: 'governance', until: iso(Date.now() + 5 * DAY) }), 403, 'OWNER_REQUIRED');
      assertProblem(await sub.delete(lockPath(ts)), 403, 'OWNER_REQUIRED');
      assert.equal((await lockOf(ts)).until, in10, 'the refusals changed nothing');

      const in20 = iso(Date.now() + 20 * DAY);
      const extended = await sub.send('PUT', lockPath(ts), { mode: 'governance', until: in20 });
      assert.equal(extended.status, 200, extended.body);
      assert.equal(extended.json().lock.until, in20);
      const again = await sub.send('PUT', lockPath(ts), { mode: 'governance', until: in20 });
      assert.deepEqual(again.json().lock, extended.json().lock, 'a repeated request changes nothing, not even lockedAt');

      const in2 = iso(Date.now() + 2 * DAY);
      const shortened = await owner.send('PUT', lockPath(ts), { mode: 'governance', until: in2 });
      assert.equal(shortened.status, 200, shortened.body);
      assert.equal(shortened.json().lock.until, in2);
      const lifted = await owner.delete(lockPath(ts));
      assert.equal(lifted.status, 200, lifted.body);
      assert.equal(lifted.json().lock, null);
    });

    test('a compliance lock: the owner and the CLI can neither delete, lift, shorten nor weaken it; it only extends', async () => {
      const ts = await backup();
      const in30 = iso(Date.now() + 30 * DAY);
      assert.equal((await owner.send('PUT', lockPath(ts), { mode: 'compliance', until: in30 })).status, 200);

      assertProblem(await owner.delete(`${backupsPath}/${ts}`), 409, 'BACKUP_LOCKED');
      assertProblem(await owner.delete(lockPath(ts)), 409, 'BACKUP_LOCKED');
      assertProblem(
        await owner.send('PUT', lockPath(ts), { mode: 'compliance', until: iso(Date.now() + 10 * DAY) }),
        409,
        'LOCK_NOT_SHORTENABLE',
      );
      assertProblem(
        await owner.send('PUT', lockPath(ts), { mode: 'governance', until: iso(Date.now() + 40 * DAY) }),
        409,
        'LOCK_NOT_SHORTENABLE',
      );
      assert.equal((await lockOf(ts)).until, in30);

      const channel = ['--channel', home.channel.id, '--backup', ts, '--json'];
      for (const args of [
        ['backup', 'delete', ...channel],
        ['backup', 'delete', ...channel, '--bypass-governance'],
        ['backup', 'lock', ...channel, '--unlock'],
      ]) {
        const run = await cli(...args);
        assert.equal(run.code, 1, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
        assert.equal(run.json().error.code, 'BACKUP_LOCKED', args.join(' '));
      }
      const weaker = await cli('backup', 'lock', ...channel, '--mode', 'governance', '--until', iso(Date.now() + 40 * DAY));
      assert.equal(weaker.code, 1, weaker.stdout);
      assert.equal(weaker.json().error.code, 'LOCK_NOT_SHORTENABLE');
      assert.equal((await lockOf(ts)).until, in30, 'nothing the CLI was refused changed the lock');

      const in40 = iso(Date.now() + 40 * DAY);
      const extended = await sub.send('PUT', lockPath(ts), { mode: 'compliance', until: in40 });
      assert.equal(extended.status, 200, extended.body);
      assert.equal(extended.json().lock.until, in40);
    });

    test('the operator CLI lifts a governance lock and deletes past one, never a legal hold; it prints the codes', async () => {
      const ts = await backup();
      const channel = ['--channel', home.channel.id, '--backup', ts, '--json'];
      const locked = await cli('backup', 'lock', ...channel, '--mode', 'governance', '--until', iso(Date.now() + 3 * DAY), '--legal-hold');
      assert.equal(locked.code, 0, locked.stderr);
      assert.equal(locked.json().lock.mode, 'governance');
      assert.equal(locked.json().lock.legalHold, true);
      assert.equal(locked.json().lock.lockedBy, null, 'the operator is no admin');
      const held = await cli('backup', 'delete', ...channel, '--bypass-governance');
      assert.equal(held.code, 1);
      assert.equal(held.json().error.code, 'BACKUP_LOCKED', 'a legal hold binds the operator too');
      const released = await cli('backup', 'lock', ...channel, '--release-hold');
      assert.equal(released.code, 0, released.stderr);
      assert.equal(released.json().lock.legalHold, false);
      const deleted = await cli('backup', 'delete', ...channel, '--bypass-governance');
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal(await lockOf(ts), 'gone');
      // An HTTP caller cannot bypass anything: the route has no such option (an unknown query parameter is refused).
      const usage = await cli('backup', 'lock', ...channel, '--unlock', '--mode', 'governance', '--until', iso(Date.now() + DAY));
      assert.equal(usage.code, 2, usage.stdout);
    });

    test('the cap and bad bodies: 400 problems naming what was wrong, and nothing changed', async () => {
      const ts = await backup();
      const tooLong = await owner.send('PUT', lockPath(ts), { mode: 'compliance', until: iso(Date.now() + 366 * DAY) });
      assertProblem(tooLong, 400, 'LOCK_TOO_LONG');
      assert.match(tooLong.json().detail, /365 days.*BACKUP_LOCK_MAX_DAYS/);
      assertProblem(await owner.send('PUT', lockPath(ts), { mode: 'compliance', until: iso(Date.now() - DAY) }), 400, 'LOCK_IN_PAST');
      const cases: [unknown, RegExp][] = [
        [{}, /mode and until, or legalHold/],
        [{ mode: 'compliance' }, /mode needs until/],
        [{ until: iso(Date.now() + DAY) }, /until needs mode/],
        [{ mode: 'forever', until: iso(Date.now() + DAY) }, /mode/],
        [{ mode: 'compliance', until: 'tomorrow' }, /until must be an RFC 3339 date-time/],
        [{ legalHold: 'yes' }, /legalHold/],
        [{ legalHold: true, pinned: true }, /Unknown body member: pinned/],
      ];
      for (const [body, detail] of cases) {
        const refused = await owner.send('PUT', lockPath(ts), body);
        assertProblem(refused, 400, 'VALIDATION_FAILED');
        assert.match(refused.json().detail, detail, JSON.stringify(body));
      }
      assertProblem(await owner.send('PUT', `${backupsPath}/2026-01-01/lock`, { legalHold: true }), 400, 'INVALID_TIMESTAMP');
      assertProblem(await owner.delete(`${backupsPath}/20260230_000000`), 400, 'INVALID_TIMESTAMP');
      assertProblem(await owner.send('PUT', `${backupsPath}/19990101_000000/lock`, { legalHold: true }), 404, 'BACKUP_NOT_FOUND');
      assert.equal(await lockOf(ts), null, 'no refusal locked anything');
      // The cap is a setting, validated at start-up.
      assert.throws(() => loadConfig({ BACKUP_LOCK_MAX_DAYS: '0' }), /BACKUP_LOCK_MAX_DAYS/);
      assert.equal(loadConfig({ BACKUP_LOCK_MAX_DAYS: '30' }).files.backupLockMaxDays, 30);
    });

    test('without backups:lock or backups:delete, a sub-admin is refused', async () => {
      const ts = await backup();
      const reader = await createMemberAdmin(store, home, { permissions: ['files:read'], channels: [home.channel] });
      const api = new AdminApi(svc.baseUrl, reader.wallet, svc.config.auth.domains[0]!);
      assertProblem(await api.send('PUT', lockPath(ts), { legalHold: true }), 403, 'PERMISSION_DENIED');
      assertProblem(await api.delete(`${backupsPath}/${ts}`), 403, 'PERMISSION_DENIED');
      assert.notEqual(await lockOf(ts), 'gone');
    });

    test('retention keeps a locked backup and every version it names; past the date, it and they go; a delete too', async () => {
      const channel = await store.createChannel({ tenantId: home.tenant.id, name: `retained-${Date.now()}` });
      let clock = Date.now();
      const now = () => clock;
      const audit = new AuditTrail(store.files, quiet(), now);
      const backups = new BackupService({ catalog: store.files, audit, now });
      const locks = new BackupLocks({ catalog: store.files, audit, maxDays: 365, now });
      const blobs: BlobStorage = await openBlobStorage(loadConfig({ DATA_DIR: storage.dataDir, ...storage.env }));
      try {
        const retention = new Retention(blobs, store.files, { keepLast: 1, keepDays: 1, versionKeepDays: 1 }, quiet(), now);
        const admin = { adminId: home.owner.id, authority: 'admin' as const };

        await put(channel, 'a.txt', 'one');
        await put(channel, 'held.txt', 'held');
        const locked = (await backups.create(channel, admin, 'api')).timestamp;
        await locks.change(channel, admin, locked, { retention: { mode: 'compliance', until: clock + 30 * DAY } });
        // A write between the two: "one" is named by the locked backup alone, "two" by the held one alone.
        await put(channel, 'a.txt', 'two');
        clock += 1000;
        const held = (await backups.create(channel, admin, 'api')).timestamp;
        await locks.change(channel, admin, held, { legalHold: true });
        // Each file's newest version always stays: later writes make the ones before them retention's to judge.
        await put(channel, 'held.txt', 'gone');
        await put(channel, 'held.txt', 'gone again');
        await put(channel, 'a.txt', 'three');
        await put(channel, 'a.txt', 'four');
        await put(channel, 'a.txt', 'five');
        clock += 1000;
        await backups.create(channel, admin, 'api'); // the newest: kept by keepLast

        const versions = async () => (await store.files.listVersions(channel.id, 'docs', 'a.txt', { limit: 100 })).items.length;
        const namedBy = (ts: string, name: string) => store.files.backupVersion(channel.id, ts, 'docs', name);
        const one = await namedBy(locked, 'a.txt');
        assert.ok(one?.blobKey, 'the locked backup names a kept version of a.txt');
        const before = await versions();

        // Ten days on: both older backups are past keepDays and beyond keepLast, but one is locked, one held.
        clock += 10 * DAY;
        await retention.apply(channel);
        const listed = (await store.files.listBackups(channel.id, { limit: 100 })).items.map((b) => b.timestamp);
        assert.ok(listed.includes(locked) && listed.includes(held), 'both stay');
        assert.equal((await namedBy(locked, 'a.txt'))?.blobKey, one.blobKey, 'its version stays');
        assert.ok(await blobs.stat(one.blobKey), 'and so do its bytes');
        assert.ok((await namedBy(held, 'held.txt'))?.blobKey, "the held backup's version stays");
        assert.equal(await versions(), before - 1, 'the version no backup names ("three") went: retention ran');
        await assert.rejects(locks.delete(channel, admin, locked), (e) => isAppError(e) && e.code === 'BACKUP_LOCKED');

        // Past the lock's date: the locked backup goes by the normal rules, and its version with it; the held one stays.
        clock += 30 * DAY;
        await retention.apply(channel);
        const after = (await store.files.listBackups(channel.id, { limit: 100 })).items.map((b) => b.timestamp);
        assert.ok(!after.includes(locked), 'past its date, it went');
        assert.ok(after.includes(held), 'a legal hold has no date');
        assert.equal(await blobs.stat(one.blobKey), undefined, 'its bytes went with it');

        // A delete past a governance lock's date goes through.
        await locks.change(channel, admin, held, { retention: { mode: 'governance', until: clock + DAY } });
        await locks.change(channel, { ...admin, authority: 'owner' }, held, { legalHold: false });
        await assert.rejects(locks.delete(channel, admin, held), (e) => isAppError(e) && e.code === 'BACKUP_LOCKED');
        clock += 2 * DAY;
        await locks.delete(channel, admin, held);
        assert.equal(await store.files.getBackup(channel.id, held), undefined);
      } finally {
        await blobs.close();
      }
    });

    test('the lock survives a restart of the service: it lives in the database', async () => {
      const ts = await backup();
      const until = iso(Date.now() + 50 * DAY);
      const set = await owner.send('PUT', lockPath(ts), { mode: 'compliance', until, legalHold: true });
      assert.equal(set.status, 200, set.body);
      await svc.close();
      svc = await startTestService(engine, { storage });
      store = svc.service.store;
      owner = new AdminApi(svc.baseUrl, home.ownerWallet, svc.config.auth.domains[0]!);
      assert.deepEqual(await lockOf(ts), set.json().lock);
      assertProblem(await owner.delete(`${backupsPath}/${ts}`), 409, 'BACKUP_LOCKED');
    });
  });
}
