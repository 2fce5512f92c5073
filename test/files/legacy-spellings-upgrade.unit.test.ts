import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Kysely, Migrator } from 'kysely';
import { createLogger } from '../../src/logging/logger.ts';
import { openPostgresDatabase, openSqliteDatabase, SQLITE_FILE_NAME } from '../../src/metadata/database.ts';
import { migrationNames, migrationProvider } from '../../src/metadata/migrations/index.ts';
import type { Database } from '../../src/metadata/schema.ts';
import type { Channel } from '../../src/model/channels.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

/**
 * Data an older release wrote — it stored names as callers spelled them, so macOS's NFD spellings
 * among them, and a look-alike pair (the same name in NFC and in NFD) — opened by this release.
 * The data is written through the services, then the database is taken back to the older
 * release's schema (before the legacy spellings' migration) and the names are spelled as that release would have
 * stored them, straight in the rows; then this release opens it.
 */
const nfd = (name: string) => name.normalize('NFD');
const nfc = (name: string) => name.normalize('NFC');

const RESUME = nfc('résumé.txt');
const CAFE = nfc('café.txt');
const SLIDES = nfc('Präsentation');
const GONE = nfc('gelöscht.txt');
const TEAM = nfc('Café Team');
const ZOE = nfc('Zoë');

/** The last migration of the release before names were stored in NFC. */
const OLDER_RELEASE_MIGRATION = migrationNames[migrationNames.findIndex((name) => name.endsWith('-legacy-spellings')) - 1]!;

/** The tables whose rows name a file (folder, filename) or a folder. */
const FILE_TABLES = ['files', 'file_versions', 'audit_events'] as const;

async function openDatabase(storage: Storage): Promise<Kysely<Database>> {
  return storage.databaseUrl
    ? openPostgresDatabase(storage.databaseUrl, createLogger('error'))
    : openSqliteDatabase(path.join(storage.dataDir, SQLITE_FILE_NAME));
}

/** Back to the schema of the release before the legacy spellings' migration, then `respell` the rows as it would have stored them. */
async function asAnOlderReleaseStoredThem(storage: Storage, respell: (db: Kysely<Database>) => Promise<void>): Promise<void> {
  const db = await openDatabase(storage);
  try {
    const back = await new Migrator({ db, provider: migrationProvider }).migrateTo(OLDER_RELEASE_MIGRATION);
    if (back.error) throw back.error;
    await respell(db);
  } finally {
    await db.destroy();
  }
}

async function respellFile(db: Kysely<Database>, channelId: string, folder: string, from: string, to: string): Promise<void> {
  for (const table of FILE_TABLES) {
    await db
      .updateTable(table)
      .set({ filename: to })
      .where('channel_id', '=', channelId)
      .where('folder', '=', folder)
      .where('filename', '=', from)
      .execute();
  }
}

async function respellFolder(db: Kysely<Database>, channelId: string, from: string, to: string): Promise<void> {
  for (const table of [...FILE_TABLES, 'folder_counts'] as const) {
    await db.updateTable(table).set({ folder: to }).where('channel_id', '=', channelId).where('folder', '=', from).execute();
  }
}

for (const engine of ENGINES) {
  describe(`names an older release stored in NFD, opened by this release (${engine})`, () => {
    let storage: Storage;
    let svc: TestService;
    let fixture: TenantFixture;
    let client: FilesClient;
    let backup: string;
    let team: Channel;
    const zoes: Channel[] = [];

    const channelPath = (ref: string) => `/api/channels/${encodeURIComponent(ref)}`;
    const get = (pathname: string) => request(svc.baseUrl, pathname, { headers: client.auth });
    const filenames = async (folder: string) => (await client.list(folder)).json().items.map((f: { filename: string }) => f.filename);

    before(async () => {
      storage = await createStorage(engine);
      // Written as any release writes it…
      const first = await startTestService(engine, { storage });
      try {
        fixture = await createTenantFixture(first.service.store, 'Spellings');
        const auth = await signIn(fixture.ownerWallet, first.config.auth.domains[0]!);
        const writer = new FilesClient(first.baseUrl, fixture.channel.id, { ...auth });
        for (const [folder, filename, body] of [
          ['docs', RESUME, 'résumé v1'],
          ['docs', RESUME, 'résumé v2'],
          ['docs', CAFE, 'café in NFC'],
          ['docs', 'twin.txt', 'café in NFD'],
          [SLIDES, 'a.txt', 'slides'],
          ['docs', GONE, 'deleted long ago'],
        ] as const) {
          assert.ok([200, 201].includes((await writer.put(folder, filename, body)).status));
        }
        assert.equal((await writer.delete('docs', GONE)).status, 204);
        await nextSecond();
        backup = (await writer.backup()).json().timestamp;
        team = await first.service.store.createChannel({ tenantId: fixture.tenant.id, name: TEAM });
        zoes.push(await first.service.store.createChannel({ tenantId: fixture.tenant.id, name: ZOE }));
        zoes.push(await first.service.store.createChannel({ tenantId: fixture.tenant.id, name: 'zoe twin' }));
        for (const channel of [team, ...zoes]) await first.service.store.linkChannel(channel.id, fixture.owner.id);
      } finally {
        await first.close();
      }
      // …then spelled as the older release stored what macOS sent it.
      await asAnOlderReleaseStoredThem(storage, async (db) => {
        const channelId = fixture.channel.id;
        await respellFile(db, channelId, 'docs', RESUME, nfd(RESUME));
        await respellFile(db, channelId, 'docs', 'twin.txt', nfd(CAFE));
        await respellFile(db, channelId, 'docs', GONE, nfd(GONE));
        await respellFolder(db, channelId, SLIDES, nfd(SLIDES));
        await db
          .updateTable('channels')
          .set({ name: nfd(TEAM) })
          .where('id', '=', team.id)
          .execute();
        await db
          .updateTable('channels')
          .set({ name: nfd(ZOE) })
          .where('id', '=', zoes[1]!.id)
          .execute();
      });
      svc = await startTestService(engine, { storage });
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    });
    after(async () => {
      await svc?.close();
      await storage?.drop();
    });

    test('a file stored in NFD is reached by either spelling: download, versions, upload (which replaces it), restore', async () => {
      for (const spelling of [nfc(RESUME), nfd(RESUME)]) {
        const got = await client.get('docs', spelling);
        assert.equal(got.status, 200, `download by ${JSON.stringify(spelling)}: ${got.body}`);
        assert.equal(got.body, 'résumé v2');
      }
      const [byNfc, byNfd] = [await client.versions('docs', nfc(RESUME)), await client.versions('docs', nfd(RESUME))];
      assert.equal(byNfc.status, 200, byNfc.body);
      assert.deepEqual(byNfc.json(), byNfd.json(), 'one history, whichever the spelling');
      const replaced = byNfc.json().items.find((v: { kind: string }) => v.kind === 'replaced');
      assert.ok(replaced, 'the first upload is kept');

      const upload = await client.put('docs', nfc(RESUME), 'résumé v3');
      assert.equal(upload.status, 200, `an upload of the NFC spelling replaces the NFD file: ${upload.body}`);
      assert.equal(upload.json().filename, nfd(RESUME), 'the file keeps the name it was stored under');
      assert.deepEqual(
        (await filenames('docs')).filter((name: string) => nfc(name) === RESUME),
        [nfd(RESUME)],
        'still one file of that name',
      );

      const restored = await client.restore('docs', nfc(RESUME), `?versionId=${replaced.id}`);
      assert.equal(restored.status, 200, restored.body);
      assert.equal((await client.get('docs', nfd(RESUME))).body, 'résumé v1');
    });

    test('a folder stored in NFD is reached by either spelling: its files, its count, its changes, the audit log', async () => {
      for (const spelling of [nfc(SLIDES), nfd(SLIDES)]) {
        const listed = await client.list(spelling);
        assert.equal(listed.status, 200, listed.body);
        assert.deepEqual(
          listed.json().items.map((f: { folder: string; filename: string }) => [f.folder, f.filename]),
          [[nfd(SLIDES), 'a.txt']],
        );
        assert.equal((await client.get(spelling, 'a.txt')).body, 'slides');
      }
      // Folder counts: the folder's one live file is unchanged since the backup.
      const plan = await request(
        svc.baseUrl,
        `${channelPath(fixture.channel.id)}/folders/${encodeURIComponent(nfc(SLIDES))}/restore?backupTimestamp=${backup}&dryRun=true`,
        { method: 'POST', headers: client.auth },
      );
      assert.equal(plan.status, 200, plan.body);
      assert.deepEqual([plan.json().changes, plan.json().unchanged], [[], 1]);

      assert.equal((await client.put(nfc(SLIDES), 'a.txt', 'slides, changed')).status, 200);
      const changes = await get(`${channelPath(fixture.channel.id)}/changes?from=${backup}&folder=${encodeURIComponent(nfc(SLIDES))}`);
      assert.equal(changes.status, 200, changes.body);
      assert.deepEqual(
        changes.json().items.map((c: { folder: string; filename: string; change: string }) => [c.folder, c.filename, c.change]),
        [[nfd(SLIDES), 'a.txt', 'changed']],
      );
      const audit = (await client.audit(`?folder=${encodeURIComponent(nfc(SLIDES))}&action=upload`)).json().items;
      assert.deepEqual(
        audit.map((e: { folder: string }) => e.folder),
        [nfc(SLIDES), nfd(SLIDES)],
        "this release's upload (recorded in NFC) and the older release's (in NFD)",
      );
      const added = await client.put(nfc(SLIDES), 'b.txt', 'a new file of the folder');
      assert.equal(added.status, 201, added.body);
      assert.equal(added.json().folder, nfd(SLIDES), 'a new file joins the folder as it is stored');
      assert.deepEqual(
        (await get(`${channelPath(fixture.channel.id)}/folders`))
          .json()
          .items.map((f: { name: string }) => f.name)
          .filter((name: string) => nfc(name) === SLIDES),
        [nfd(SLIDES)],
        'one folder: the writes went to the stored one',
      );
    });

    test('a file deleted under its NFD name is listed in the folder and restored by either spelling', async () => {
      const deleted = (await get(`${channelPath(fixture.channel.id)}/folders/docs/deleted`)).json().items;
      const gone = deleted.find((d: { filename: string }) => nfc(d.filename) === GONE);
      assert.equal(gone?.filename, nfd(GONE));
      const restored = await client.restore('docs', nfc(GONE), `?versionId=${gone.versionId}`);
      assert.equal(restored.status, 200, restored.body);
      assert.equal((await client.get('docs', nfc(GONE))).body, 'deleted long ago');
      assert.deepEqual(
        (await filenames('docs')).filter((name: string) => nfc(name) === GONE),
        [nfd(GONE)],
        'back under the name it was stored under: its versions are its own',
      );
      const afterwards = (await get(`${channelPath(fixture.channel.id)}/folders/docs/deleted`)).json().items;
      assert.equal(
        afterwards.find((d: { filename: string }) => nfc(d.filename) === GONE),
        undefined,
      );
    });

    test('a look-alike pair is refused with 409 NAME_AMBIGUOUS naming both, until one is deleted', async () => {
      const pair = (await filenames('docs')).filter((name: string) => nfc(name) === CAFE).sort();
      assert.deepEqual(pair, [nfc(CAFE), nfd(CAFE)].sort(), 'both spellings are listed, as stored');
      const attempts = {
        'download by NFC': () => client.get('docs', nfc(CAFE)),
        'download by NFD': () => client.get('docs', nfd(CAFE)),
        versions: () => client.versions('docs', nfc(CAFE)),
        upload: () => client.put('docs', nfd(CAFE), 'which one?'),
        delete: () => client.delete('docs', nfc(CAFE)),
        restore: () => client.restore('docs', nfc(CAFE), `?backupTimestamp=${backup}`),
      };
      let nfdEtag = '';
      for (const [what, attempt] of Object.entries(attempts)) {
        const refused = await attempt();
        assertProblem(refused, 409, 'NAME_AMBIGUOUS');
        const lookalikes = refused.json().lookalikes as { spelling: string; etag: string; filename: string }[];
        assert.deepEqual(lookalikes.map((l) => l.spelling).sort(), ['docs/caf\\u00e9.txt', 'docs/cafe\\u0301.txt'], what);
        for (const spelling of ['docs/caf\\u00e9.txt', 'docs/cafe\\u0301.txt'])
          assert.ok(refused.json().detail.includes(spelling), `${what}: the detail names ${spelling}`);
        nfdEtag = lookalikes.find((l) => l.filename === nfd(CAFE))!.etag;
      }
      assert.equal((await client.get('docs', nfc(CAFE))).status, 409, 'the refused upload changed nothing');

      const deleted = await client.delete('docs', nfc(CAFE), { 'If-Match': nfdEtag });
      assert.equal(deleted.status, 204, `If-Match with one's ETag says which: ${deleted.body}`);
      for (const spelling of [nfc(CAFE), nfd(CAFE)]) {
        const got = await client.get('docs', spelling);
        assert.equal(got.status, 200, got.body);
        assert.equal(got.body, 'café in NFC', 'the one left, by either spelling');
      }
      assert.equal((await client.versions('docs', nfd(CAFE))).status, 200);
      assert.deepEqual(
        (await filenames('docs')).filter((name: string) => nfc(name) === CAFE),
        [nfc(CAFE)],
      );
    });

    test('new names are stored in NFC, whatever spelling they come in', async () => {
      const created = await client.put('docs', nfd('naïve.txt'), 'new');
      assert.equal(created.status, 201, created.body);
      assert.equal(created.json().filename, nfc('naïve.txt'));
      assert.ok((await filenames('docs')).includes(nfc('naïve.txt')));
      assert.ok(!(await filenames('docs')).includes(nfd('naïve.txt')));
      assert.equal((await client.put(nfd('Übersicht'), 'b.txt', 'new folder')).json().folder, nfc('Übersicht'));
    });

    test('a channel named in NFD is reached by either spelling; two look-alike channels are NAME_AMBIGUOUS, naming both', async () => {
      for (const spelling of [nfc(TEAM), nfd(TEAM)]) {
        const folders = await get(`${channelPath(spelling)}/folders`);
        assert.equal(folders.status, 200, `${JSON.stringify(spelling)}: ${folders.body}`);
      }
      const refused = await get(`${channelPath(ZOE)}/folders`);
      assertProblem(refused, 409, 'NAME_AMBIGUOUS');
      assert.deepEqual(
        refused
          .json()
          .lookalikes.map((l: { id: string }) => l.id)
          .sort(),
        zoes.map((c) => c.id).sort(),
      );
      assert.equal((await get(`${channelPath(zoes[1]!.id)}/folders`)).status, 200, 'by id, each is itself');
      await assert.rejects(
        svc.service.store.createChannel({ tenantId: fixture.tenant.id, name: TEAM }),
        (error: { code?: string }) => error.code === 'CHANNEL_NAME_TAKEN',
        'the NFC spelling of a name stored in NFD is taken',
      );
    });
  });
}
