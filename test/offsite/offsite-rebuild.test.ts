import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { loadConfig } from '../../src/config/config.ts';
import { filePath } from '../../src/files/file-path.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import type { Channel } from '../../src/model/channels.ts';
import { AdminApi } from '../administration/admin-client.ts';
import type { Setup } from '../helpers/backends.ts';
import { runCli } from '../helpers/cli.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { ageKeys, type OffsiteKeys, offsiteDir, recordedState } from '../helpers/offsite.ts';
import { createStorage, type Storage, startTestService, storageEnv } from '../helpers/test-service.ts';

const DAY = 86_400_000;

/**
 * The machine is lost (docs/offsite.md, "Rebuilding"): a service that ships to a second disk takes
 * writes, replacements, deletes, restores, backups, a lock and admin changes in two tenants; once the
 * copy has caught up its database and storage are dropped; `wallet-admin offsite restore` builds a
 * new service from the copy and the identity alone, on the other engine and storage; every record
 * and every byte is there, the same admins sign in, and the contract's restore answers as before.
 */
const PAIRS: [Setup, Setup][] = [
  ['sqlite', 'postgres+s3'],
  ['postgres+s3', 'sqlite'],
];

for (const [from, to] of PAIRS) {
  describe(`a service rebuilt from its off-site copy alone (${from} → ${to})`, () => {
    let keys: OffsiteKeys;
    let copy: Awaited<ReturnType<typeof offsiteDir>>;
    let source: Storage;
    let destination: Storage;

    before(async () => {
      keys = await ageKeys();
      copy = await offsiteDir();
      source = await createStorage(from);
      destination = await createStorage(to);
    });
    after(async () => {
      await source.drop();
      await destination.drop();
      await copy.drop();
      await rm(keys.dir, { recursive: true, force: true });
    });

    test('every file, version, backup, lock, admin and audit entry comes back, byte for byte; the rebuilt service answers the contract', async () => {
      const svc = await startTestService(from, {
        storage: source,
        env: { OFFSITE_URL: copy.url, OFFSITE_RECIPIENTS: keys.recipient, OFFSITE_SHIP_INTERVAL: '100' },
      });
      const store = svc.service.store;
      const home = await createTenantFixture(store, 'Home');
      const away = await createTenantFixture(store, 'Away');
      const legal = await store.createChannel({ tenantId: home.tenant.id, name: 'legal' });
      await store.linkChannel(legal.id, home.owner.id);
      const member = await createMemberAdmin(store, home, { permissions: ['files:read'], displayName: 'Member' });
      const put = (fixture: TenantFixture, channel: Channel, folder: string, name: string, text: string) =>
        svc.service.files.files.put(
          channel,
          { adminId: fixture.owner.id },
          filePath(folder, name),
          Readable.from([Buffer.from(text)]),
          'text/plain',
        );

      await put(home, home.channel, 'docs', 'a.txt', 'first a');
      await put(home, home.channel, 'docs', 'b.txt', 'first b');
      await put(home, legal, 'contracts', 'c.txt', 'the contract');
      await put(away, away.channel, 'x', 'y.bin', 'away bytes');
      const backup = await svc.service.files.backups.create(home.channel, { adminId: home.owner.id }, 'api', Date.now() - 5000);
      await svc.service.files.backupLocks.change(home.channel, { adminId: home.owner.id, authority: 'owner' }, backup.timestamp, {
        retention: { mode: 'governance', until: Date.now() + 10 * DAY },
        legalHold: true,
      });
      await put(home, home.channel, 'docs', 'a.txt', 'second a');
      await svc.service.files.files.delete(home.channel, { adminId: home.owner.id }, filePath('docs', 'b.txt'));
      // The contract's restore, over HTTP: b.txt comes back from the backup.
      const owner = new AdminApi(svc.baseUrl, home.ownerWallet, svc.config.auth.domains[0]!);
      const restored = await owner.send(
        'POST',
        `/api/channels/${home.channel.id}/folders/docs/files/b.txt/restore?backupTimestamp=${backup.timestamp}`,
      );
      assert.equal(restored.status, 200, restored.body);
      await store.grantPermission(member.admin.id, 'audit:read');
      await store.setAdminStatus(member.admin.id, 'SUSPENDED');

      await svc.service.offsite.shipper!.drain();
      const status = await runCli(['offsite', 'status', '--json'], {
        ...storageEnv(source),
        OFFSITE_URL: copy.url,
        OFFSITE_RECIPIENTS: keys.recipient,
      });
      assert.equal(status.code, 0, status.stderr);
      const shown = JSON.parse(status.stdout);
      assert.equal(shown.changesPending, 0);
      assert.equal(shown.lagSeconds, 0);
      assert.ok(shown.head?.hash, status.stdout);
      const sourceBlobs = await openBlobStorage(svc.config);
      const live = await recordedState(store, sourceBlobs);
      await sourceBlobs.close();
      await svc.close();
      for (const table of ['files', 'file_versions', 'backups', 'admins', 'audit_events', 'channels']) {
        assert.ok(live.tables[table]!.length > 0, `the source has ${table} to compare`);
      }

      // Nothing of the copy reads as what it holds: no file content, no name.
      const { readdir, readFile } = await import('node:fs/promises');
      const everything = (await readdir(copy.dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
      for (const entry of everything) {
        const bytes = await readFile(`${entry.parentPath}/${entry.name}`);
        for (const secret of ['first a', 'second a', 'the contract', 'away bytes', 'contracts', 'c.txt', home.tenant.name]) {
          assert.equal(bytes.includes(secret), false, `${entry.name} holds ${secret} in plaintext`);
        }
      }

      // The machine is lost.
      await source.drop();

      // Onto S3 with public copies: the rebuild queues every live file's, which the rebuilt service publishes.
      const publicCopies: Record<string, string> = destination.s3 ? { S3_PUBLIC_BASE_URL: 'https://files.example.com' } : {};
      const rebuilt = await runCli(
        [
          'offsite',
          'restore',
          '--from',
          copy.url,
          '--identity',
          keys.identityFile,
          '--json',
          ...(destination.databaseUrl
            ? ['--database-url', destination.databaseUrl, '--storage', 's3']
            : ['--data-dir', destination.dataDir]),
        ],
        { ...storageEnv(destination), ...publicCopies },
      );
      assert.equal(rebuilt.code, 0, rebuilt.stderr + rebuilt.stdout);

      const config = loadConfig(storageEnv(destination));
      const again = await openMetadataStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
      const blobs = await openBlobStorage({ dataDir: config.dataDir, storage: config.storage });
      try {
        const back = await recordedState(again, blobs);
        for (const table of Object.keys(live.tables)) assert.deepEqual(back.tables[table], live.tables[table], `table ${table}`);
        assert.deepEqual(back.blobs, live.blobs);
        const admins = await again.offsite.rows('admins');
        assert.ok(
          admins.every((admin) => Number(admin.signed_out_before) > 0),
          'every admin is signed out as of the rebuild',
        );
      } finally {
        await blobs.close();
        await again.close();
      }

      // The rebuilt service: the same owner signs in, reads the file and restores from the locked backup.
      const next = await startTestService(to, { storage: destination, env: publicCopies });
      try {
        if (destination.s3) {
          const keys = await destination.s3.keys();
          for (const name of ['a.txt', 'b.txt'])
            assert.ok(keys.includes(`files/${home.channel.id}/docs/${name}`), `public copy of ${name}: ${keys.join(' ')}`);
        }
        const api = new AdminApi(next.baseUrl, home.ownerWallet, next.config.auth.domains[0]!);
        const who = await api.send('GET', '/api/auth/test');
        assert.equal(who.status, 200, who.body);
        const again = await api.send(
          'POST',
          `/api/channels/${home.channel.id}/folders/docs/files/a.txt/restore?backupTimestamp=${backup.timestamp}`,
        );
        assert.equal(again.status, 200, again.body);
        assert.match(again.headers['content-type'] ?? '', /^text\/plain;charset=ISO-8859-1$/i);
        const file = await api.send('GET', `/api/channels/${home.channel.id}/folders/docs/files/a.txt`);
        assert.equal(file.body, 'first a');
      } finally {
        await next.close();
      }
    });
  });
}
