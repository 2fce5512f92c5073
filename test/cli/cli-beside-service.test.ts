import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { runCli } from '../helpers/cli.ts';
import { assertChannelConsistent } from '../helpers/consistency.ts';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { createStorage, startTestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const ROUNDS = 10;
const RESTORED_FILES = 40;
const UPLOADS = 60;
const UPLOADS_AT_ONCE = 4;

/**
 * As an operator does it on SQLite (docs/operations.md, "The CLI beside a running service"): the service takes
 * uploads over HTTP while `wallet-admin folder restore` runs on the same DATA_DIR in its own
 * process. Both write the one database file: each must wait for the other, never fail for it.
 */
describe('the CLI and the service on one SQLite DATA_DIR, writing at once', () => {
  test(`${ROUNDS} rounds of a CLI folder restore of ${RESTORED_FILES} files beside ${UPLOADS} uploads: no 5xx, no failed restore, every file whole`, async (t) => {
    const storage = await createStorage('sqlite');
    t.after(() => storage.drop());
    const svc = await startTestService('sqlite', { storage, transport: 'socket' });
    t.after(() => svc.close());
    const fixture = await createTenantFixture(svc.service.store, 'Beside');
    const client = new FilesClient(svc.baseUrl, fixture.channel.id, {
      ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)),
    });
    const cliEnv = { DATA_DIR: storage.dataDir };
    const names: { folder: string; filename: string }[] = [];
    const restored = Array.from({ length: RESTORED_FILES }, (_, i) => `r${i}.txt`);
    for (const filename of restored) names.push({ folder: 'restored', filename });
    for (let i = 0; i < UPLOADS; i++) names.push({ folder: 'uploads', filename: `u${i}.txt` });
    const statuses = new Map<number, number>();

    for (let round = 1; round <= ROUNDS; round++) {
      for (const filename of restored)
        assert.equal((await client.put('restored', filename, `round ${round} backed up ${filename}`)).status < 300, true);
      // A second of its own: the last round's restore took a safety backup, maybe in the coming second.
      let taken = await client.backup();
      for (let tries = 0; taken.status === 409 && tries < 5; tries++) {
        await nextSecond();
        taken = await client.backup();
      }
      assert.equal(taken.status, 201, taken.body);
      const backup = taken.json().timestamp as string;
      for (const filename of restored) await client.put('restored', filename, `round ${round} changed ${filename}`);

      const cli = runCli(
        ['folder', 'restore', '--channel', fixture.channel.id, '--folder', 'restored', '--backup', backup, '--json'],
        cliEnv,
      );
      let next = 0;
      const uploader = async () => {
        while (next < UPLOADS) {
          const i = next++;
          const answer = await client.put('uploads', `u${i}.txt`, `round ${round} upload ${i}`);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          assert.ok(
            answer.status === 200 || answer.status === 201,
            `round ${round}: upload ${i} answered ${answer.status}: ${answer.body}`,
          );
        }
      };
      await Promise.all(Array.from({ length: UPLOADS_AT_ONCE }, uploader));
      const restore = await cli;
      assert.equal(restore.code, 0, `round ${round}: the CLI's restore failed: ${restore.stderr}`);

      for (const { folder, filename } of names) {
        const download = await client.get(folder, filename);
        assert.equal(download.status, 200, `round ${round}: ${folder}/${filename}`);
        assert.equal(download.headers.etag, `"${sha256(download.bytes)}"`, `round ${round}: ${folder}/${filename} is what its ETag says`);
        assert.equal(Number(download.headers['content-length']), download.bytes.length);
        const expected = folder === 'restored' ? `round ${round} backed up ${filename}` : `round ${round} upload ${filename.slice(1, -4)}`;
        assert.equal(download.body, expected, `round ${round}: ${folder}/${filename}`);
      }
    }
    const blobs = await openBlobStorage(svc.config);
    try {
      await assertChannelConsistent(svc.service.store.files, blobs, fixture.channel.id, names, 'after every round');
    } finally {
      await blobs.close();
    }
    t.diagnostic(`upload answers: ${JSON.stringify(Object.fromEntries(statuses))}`);
  });
});
