import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { runCli } from '../helpers/cli.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

for (const setup of FILE_SETUPS) {
  describe(`CLI deleted files and backup diff beside a running server (${setup})`, () => {
    let storage: Storage;
    let svc: TestService;
    let fixture: TenantFixture;
    let client: FilesClient;
    let env: Record<string, string | undefined>;
    const cli = (...args: string[]) => runCli(args, env);

    before(async () => {
      storage = await createStorage(setup);
      env = { DATA_DIR: storage.dataDir, DATABASE_URL: storage.databaseUrl, ...storage.env };
      svc = await startTestService(setup, { storage });
      fixture = await createTenantFixture(svc.service.store, 'HistoryCli');
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    });
    after(async () => {
      await svc.close();
      await storage.drop();
    });

    test('file deleted lists what the server deleted; backup diff lists the changes; bad input exits non-zero', async () => {
      assert.equal((await client.put('docs', 'a.txt', 'one')).status, 201);
      assert.equal((await client.put('docs', 'b.txt', 'bee')).status, 201);
      await nextSecond();
      const from = (await client.backup()).json().timestamp as string;
      assert.equal((await client.delete('docs', 'b.txt')).status, 204);
      assert.equal((await client.put('docs', 'a.txt', 'two!')).status, 200);

      const deleted = await cli('file', 'deleted', '--channel', fixture.channel.id, '--folder', 'docs', '--json');
      assert.equal(deleted.code, 0, deleted.stderr);
      const [item] = deleted.json().items;
      assert.deepEqual(
        [deleted.json().items.length, item.filename, item.sha256, item.size, item.deletedBy],
        [1, 'b.txt', sha256('bee'), 3, fixture.owner.id],
      );
      assert.match(item.versionId, /^ver_/);
      const text = await cli('file', 'deleted', '--channel', fixture.channel.name, '--tenant', fixture.tenant.id, '--folder', 'docs');
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, new RegExp(`${item.versionId} .* b\\.txt`));

      const diff = await cli('backup', 'diff', '--channel', fixture.channel.id, '--from', from, '--json');
      assert.equal(diff.code, 0, diff.stderr);
      assert.deepEqual(diff.json(), {
        items: [
          { folder: 'docs', filename: 'a.txt', change: 'changed', size: 4, sha256: sha256('two!') },
          { folder: 'docs', filename: 'b.txt', change: 'deleted', size: 3, sha256: sha256('bee') },
        ],
        next: null,
      });
      const diffText = await cli('backup', 'diff', '--channel', fixture.channel.id, '--from', from, '--to', from);
      assert.equal(diffText.code, 0, diffText.stderr);
      assert.match(diffText.stdout, /No changes between/);

      const unknown = await cli('backup', 'diff', '--channel', fixture.channel.id, '--from', '20000101_000000', '--json');
      assert.equal(unknown.code, 1);
      assert.equal(JSON.parse(unknown.stdout || unknown.stderr).error.code, 'BACKUP_NOT_FOUND');
      const malformed = await cli('backup', 'diff', '--channel', fixture.channel.id, '--from', 'last-week', '--json');
      assert.equal(malformed.code, 1);
      assert.equal(JSON.parse(malformed.stdout || malformed.stderr).error.code, 'INVALID_TIMESTAMP');
      const missing = await cli('backup', 'diff', '--channel', fixture.channel.id);
      assert.equal(missing.code, 2, 'a usage error');
      assert.match(missing.stderr, /--from/);
    });
  });
}
