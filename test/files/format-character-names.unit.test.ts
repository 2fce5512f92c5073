import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

/** Names a format character makes show as something else: 'invoice\u202Egnp.exe' displays as 'invoiceexe.png'. */
const DISGUISED = ['invoice\u202Egnp.exe', 'report\u2067fdp.exe', 'zero\u200Bwidth.txt', '\uFEFFbom.txt', 'joiner\u200D.txt'];

for (const setup of FILE_SETUPS) {
  describe(`names with format characters (${setup})`, () => {
    let storage: Storage;
    let svc: TestService;
    let client: FilesClient;
    let backupTimestamp: string;

    /** Every blob the storage holds, and every file and version the channel lists: what "stores nothing" compares. */
    const everythingStored = async () => {
      const blobs = storage.s3
        ? await storage.s3.keys()
        : (await readdir(path.join(svc.config.dataDir, 'storage'), { recursive: true, withFileTypes: true }))
            .filter((entry) => entry.isFile())
            .map((entry) => path.join(entry.parentPath, entry.name));
      const docs = (await client.list('docs')).json().items.map((f: { filename: string }) => f.filename);
      const channelFolders = (await request(svc.baseUrl, `/api/channels/${client.channelRef}/folders`, { headers: client.auth })).json();
      const versions = (await client.versions('docs', 'a.txt')).json().items.length;
      return { blobs: blobs.sort(), docs, channelFolders, versions };
    };
    const restoreFolder = (folder: string): Promise<HttpResponse> =>
      request(
        svc.baseUrl,
        `/api/channels/${client.channelRef}/folders/${encodeURIComponent(folder)}/restore?backupTimestamp=${backupTimestamp}`,
        { method: 'POST', headers: client.auth },
      );

    before(async () => {
      storage = await createStorage(setup);
      svc = await startTestService(setup, { storage });
      const fixture = await createTenantFixture(svc.service.store, 'Names');
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
      assert.equal((await client.put('docs', 'a.txt', 'one')).status, 201);
      await nextSecond();
      backupTimestamp = (await client.backup()).json().timestamp;
    });
    after(async () => {
      await svc.close();
      await storage.drop();
    });

    test('an upload, download, delete or restore naming such a file or folder is 400 INVALID_PATH, naming the rule, and stores nothing', async () => {
      const before = await everythingStored();
      for (const name of DISGUISED) {
        const attempts: [string, () => Promise<HttpResponse>][] = [
          ['upload of the file', () => client.put('docs', name, 'disguised')],
          ['upload into the folder', () => client.put(name, 'a.txt', 'disguised')],
          ['download of the file', () => client.get('docs', name)],
          ['download from the folder', () => client.get(name, 'a.txt')],
          ['delete of the file', () => client.delete('docs', name)],
          ['delete from the folder', () => client.delete(name, 'a.txt')],
          ['restore of the file', () => client.restore('docs', name, `?backupTimestamp=${backupTimestamp}`)],
          ['restore into the folder', () => client.restore(name, 'a.txt', `?backupTimestamp=${backupTimestamp}`)],
          ['restore of the folder', () => restoreFolder(name)],
          ['listing of the folder', () => client.list(name)],
        ];
        for (const [what, answer] of attempts) {
          const response = await answer();
          assert.equal(response.status, 400, `${what} ${JSON.stringify(name)}: ${response.body}`);
          assertProblem(response, 400, 'INVALID_PATH');
          assert.match(response.json().detail, /format characters such as U\+202E \(right-to-left override\)/, what);
        }
      }
      assert.deepEqual(await everythingStored(), before);
    });

    test('the zero-width non-joiner and joiner inside a word are names like any other: Persian, emoji', async () => {
      for (const name of ['می\u200Cخواهم.txt', '\u{1F469}\u200D\u{1F4BB}.md']) {
        assert.equal((await client.put('words', name, name)).status, 201, name);
        assert.equal((await client.get('words', name)).body, name);
      }
      assert.deepEqual((await client.list('words')).json().items.length, 2);
    });
  });
}
