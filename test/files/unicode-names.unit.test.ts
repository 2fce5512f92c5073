import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Channel } from '../../src/model/channels.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

/**
 * One spelling per name: 'é' is U+00E9 (NFC: Windows, Linux, browsers) or 'e' + U+0301 (NFD: what
 * macOS hands over). Every name is stored in NFC, so the two spellings are one file.
 */
const nfc = (name: string) => name.normalize('NFC');
const nfd = (name: string) => name.normalize('NFD');

for (const engine of ENGINES) {
  describe(`names in NFC and NFD are one name (${engine})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let client: FilesClient;
    let team: Channel;

    before(async () => {
      svc = await startTestService(engine);
      fixture = await createTenantFixture(svc.service.store, 'Forms');
      // Linked before the first sign-in: a link made later shows within AUTH_STATE_REFRESH seconds.
      team = await svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: nfd('Équipe') });
      await svc.service.store.linkChannel(team.id, fixture.owner.id);
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    });
    after(() => svc?.close());

    test('an NFD upload onto a stored NFC name replaces it, as any upload does: one file, the old bytes kept as a version', async () => {
      const created = await client.put('docs', nfc('é.txt'), 'from Windows');
      assert.equal(created.status, 201);
      const replaced = await client.put('docs', nfd('é.txt'), 'from a Mac');
      assert.equal(replaced.status, 200, `replaced, not created: ${replaced.body}`);
      assert.equal(replaced.json().filename, nfc('é.txt'), 'stored under the NFC name');
      const listed = (await client.list('docs')).json().items.map((f: { filename: string }) => f.filename);
      assert.deepEqual(listed, [nfc('é.txt')]);
      for (const spelling of [nfc('é.txt'), nfd('é.txt')]) assert.equal((await client.get('docs', spelling)).body, 'from a Mac');
      const versions = (await client.versions('docs', nfd('é.txt'))).json().items;
      assert.deepEqual(
        versions.map((v: { kind: string }) => v.kind),
        ['replaced'],
      );
      const audit = (await client.audit(`?filename=${encodeURIComponent(nfd('é.txt'))}`)).json().items;
      assert.equal(audit.length, 2, 'both uploads, found by either spelling');
      assert.ok(
        audit.every((e: { filename: string }) => e.filename === nfc('é.txt')),
        'recorded in NFC',
      );
    });

    test('uploads in both spellings at once are one file written twice, one after the other (one lock)', async () => {
      const answers = await Promise.all([
        client.put('race', nfc('ü.txt'), 'one'),
        client.put('race', nfd('ü.txt'), 'two'),
        client.put('race', nfc('ü.txt'), 'three'),
      ]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 201]);
      assert.deepEqual((await client.list('race')).json().items.length, 1);
      assert.equal((await client.versions('race', nfc('ü.txt'))).json().items.length, 2, 'each replaced upload kept');
    });

    test('a folder in NFD is the NFC folder; a deleted file is listed and restored by either spelling', async () => {
      assert.equal((await client.put(nfd('Ärger'), 'a.txt', 'x')).json().folder, nfc('Ärger'));
      assert.equal((await client.put(nfc('Ärger'), 'b.txt', 'y')).status, 201);
      const folders = (await request(svc.baseUrl, `/api/channels/${fixture.channel.id}/folders`, { headers: client.auth })).json().items;
      assert.deepEqual(
        folders.filter((f: { name: string }) => nfc(f.name) === nfc('Ärger')),
        [{ name: nfc('Ärger'), fileCount: 2 }],
      );
      assert.equal((await client.delete(nfd('Ärger'), 'a.txt')).status, 204);
      const deleted = await request(
        svc.baseUrl,
        `/api/channels/${fixture.channel.id}/folders/${encodeURIComponent(nfd('Ärger'))}/deleted`,
        {
          headers: client.auth,
        },
      );
      const [gone] = deleted.json().items;
      assert.equal(gone.filename, 'a.txt');
      assert.equal((await client.restore(nfd('Ärger'), 'a.txt', `?versionId=${gone.versionId}`)).status, 200);
      assert.equal((await client.get(nfc('Ärger'), 'a.txt')).body, 'x');
    });

    test('a channel is named by either spelling of its name', async () => {
      assert.equal(team.name, nfc('Équipe'));
      for (const spelling of [nfc('Équipe'), nfd('Équipe')]) {
        const folders = await request(svc.baseUrl, `/api/channels/${encodeURIComponent(spelling)}/folders`, { headers: client.auth });
        assert.equal(folders.status, 200, folders.body);
      }
    });
  });
}
