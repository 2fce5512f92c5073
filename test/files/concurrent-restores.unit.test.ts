import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, nextSecond, sha256, storedBytes } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const RESTORES = 20;

for (const setup of FILE_SETUPS) {
  describe(`concurrent restores (${setup})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let client: FilesClient;

    before(async () => {
      svc = await startTestService(setup);
      fixture = await createTenantFixture(svc.service.store, 'Concurrent');
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    });
    after(() => svc.close());

    test(`${RESTORES} concurrent restores of one file leave it equal to one backup, every replaced version kept`, async (t) => {
      const contents = ['alpha '.repeat(50_000), 'beta '.repeat(60_000), 'gamma '.repeat(70_000)];
      const timestamps: string[] = [];
      for (const text of contents) {
        await client.put('c', 'one.txt', text);
        await nextSecond();
        const backup = await client.backup();
        assert.equal(backup.status, 201, backup.body);
        timestamps.push(backup.json().timestamp);
      }
      await client.put('c', 'one.txt', 'the current bytes before the storm');
      const versionsBefore = (await client.versions('c', 'one.txt', '?limit=1000')).json().items.length;

      const answers = await Promise.all(
        Array.from({ length: RESTORES }, (_, i) => client.restore('c', 'one.txt', `?backupTimestamp=${timestamps[i % timestamps.length]}`)),
      );
      for (const answer of answers) assert.equal(answer.status, 200, answer.body);

      const record = await svc.service.store.files.getFile(fixture.channel.id, 'c', 'one.txt');
      const live = (await storedBytes(svc.config, record!.blobKey))?.toString('utf8') ?? '';
      assert.ok(contents.includes(live), 'the live file is exactly one of the backups');
      assert.equal((await client.get('c', 'one.txt')).headers.etag, `"${sha256(live)}"`);

      // Serialised restores: each one that changed the file kept what it replaced, so the kept
      // versions chain: the first holds the pre-storm bytes, each later one a backup's.
      const audit = (await client.audit('?limit=1000')).json().items.filter((e: { action: string }) => e.action === 'restore');
      assert.equal(audit.length, RESTORES);
      assert.ok(audit.every((e: { result: string }) => e.result === 'ok'));
      const versions = (await client.versions('c', 'one.txt', '?limit=1000')).json().items as { kind: string; sha256: string }[];
      const kept = versions.slice(0, versions.length - versionsBefore).reverse();
      assert.ok(kept.length >= 1 && kept.length <= RESTORES);
      assert.equal(kept[0]!.sha256, sha256('the current bytes before the storm'));
      const backupHashes = new Set(contents.map(sha256));
      assert.ok(kept.slice(1).every((v) => v.kind === 'replaced' && backupHashes.has(v.sha256)));
      for (let i = 1; i < kept.length; i++) assert.notEqual(kept[i]!.sha256, kept[i - 1]!.sha256, 'a no-op restore keeps nothing');
      for (const version of await svc.service.store.files
        .listVersions(fixture.channel.id, 'c', 'one.txt', { limit: 1000 })
        .then((p) => p.items)) {
        const live = await svc.service.store.files.getFile(fixture.channel.id, 'c', 'one.txt');
        const bytes = await storedBytes(svc.config, version.blobKey ?? live!.blobKey);
        assert.equal(bytes && sha256(bytes), version.sha256, `version ${version.id} holds its recorded bytes`);
      }
      t.diagnostic(`${RESTORES} concurrent restores: ${kept.length} changed the file, ${RESTORES - kept.length} were no-ops`);
    });

    test('restores of different files run side by side and each ends right', async () => {
      const names = Array.from({ length: 10 }, (_, i) => `f${i}.txt`);
      for (const name of names) await client.put('p', name, `original ${name}`);
      await nextSecond();
      const { timestamp } = (await client.backup()).json();
      for (const name of names) await client.put('p', name, `changed ${name}`);
      const answers = await Promise.all(names.map((name) => client.restore('p', name, `?backupTimestamp=${timestamp}`)));
      assert.deepEqual(
        answers.map((a) => a.status),
        names.map(() => 200),
      );
      for (const name of names) assert.equal((await client.get('p', name)).body, `original ${name}`);
    });
  });
}
