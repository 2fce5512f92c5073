import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { createLogger } from '../../src/logging/logger.ts';
import { openPostgresDatabase, openSqliteDatabase, SQLITE_FILE_NAME } from '../../src/metadata/database.ts';
import type { Database } from '../../src/metadata/schema.ts';
import { ENGINES } from '../helpers/backends.ts';
import { type CliResult, runCli } from '../helpers/cli.ts';
import { FilesClient } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn } from '../helpers/wallets.ts';

/**
 * Names an older release let in, as it stored them: a terminal escape that clears the screen and
 * retitles the window, a bell, text hidden in tag characters (U+E0000–E007F, beyond U+FFFF: 'pay'
 * that no terminal shows), a line of `channel list` output faked with CR/LF, the C1 CSI, a
 * right-to-left override. Names refuse them now; the CLI's text must show them, never act on them.
 */
const HOSTILE = {
  tenant: 'evil\u001b[2J\u001b]0;pwned\u0007\u{E0070}\u{E0061}\u{E0079}\u{E007F}',
  channel: 'ok\r\nchn_00000000000000000000000000  t_fake  payroll',
  admin: 'Mallory\u009b31m\u202Egnp.exe\u007f',
};

/** Any character a terminal acts on or that hides (C0, DEL, C1, format characters), but the newlines that end the CLI's own lines. */
const RAW_CONTROL = /(?!\n)[\p{Cc}\p{Cf}]/u;

const nfc = (name: string) => name.normalize('NFC');
const nfd = (name: string) => name.normalize('NFD');

async function openDatabase(storage: Storage): Promise<Kysely<Database>> {
  return storage.databaseUrl
    ? openPostgresDatabase(storage.databaseUrl, createLogger('error'))
    : openSqliteDatabase(path.join(storage.dataDir, SQLITE_FILE_NAME));
}

function assertShownSafely(result: CliResult, what: string): void {
  assert.equal(result.code, 0, `${what}: ${result.stderr}`);
  const raw = RAW_CONTROL.exec(result.stdout);
  assert.equal(
    raw,
    null,
    `${what} printed a raw U+${raw?.[0].codePointAt(0)?.toString(16).padStart(4, '0')}: ${JSON.stringify(result.stdout)}`,
  );
}

for (const engine of ENGINES) {
  describe(`the CLI shows stored names safely, and takes names in either spelling (${engine})`, () => {
    let storage: Storage;
    let svc: TestService;
    let fixture: TenantFixture;
    let env: Record<string, string | undefined>;
    const ids = { tenant: '', channel: '', admin: '' };
    const cli = (...args: string[]) => runCli(args, env);

    before(async () => {
      storage = await createStorage(engine);
      env = { DATA_DIR: storage.dataDir, DATABASE_URL: storage.databaseUrl };
      svc = await startTestService(engine, { storage });
      fixture = await createTenantFixture(svc.service.store, 'Names');
      const client = new FilesClient(svc.baseUrl, fixture.channel.id, {
        ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)),
      });
      await client.put('Ablage', nfc('Lösung.txt'), 'one');
      await client.put('Ablage', nfc('Lösung.txt'), 'two');
      // Records as an older release stored them, written straight into the database.
      const tenant = await svc.service.store.createTenant({ name: 'placeholder' });
      const channel = await svc.service.store.createChannel({ tenantId: tenant.id, name: 'placeholder' });
      const admin = await svc.service.store.createAdmin({ tenantId: tenant.id, wallet: newWallet().address, displayName: 'placeholder' });
      Object.assign(ids, { tenant: tenant.id, channel: channel.id, admin: admin.id });
      const db = await openDatabase(storage);
      try {
        await db.updateTable('tenants').set({ name: HOSTILE.tenant }).where('id', '=', tenant.id).execute();
        await db.updateTable('channels').set({ name: HOSTILE.channel }).where('id', '=', channel.id).execute();
        await db.updateTable('admins').set({ display_name: HOSTILE.admin }).where('id', '=', admin.id).execute();
      } finally {
        await db.destroy();
      }
    });
    after(async () => {
      await svc?.close();
      await storage?.drop();
    });

    test('tenant list, channel list and admin list print no raw control or bidi character, but show each escaped', async () => {
      const tenants = await cli('tenant', 'list');
      assertShownSafely(tenants, 'tenant list');
      assert.ok(
        tenants.stdout.includes(`${ids.tenant}  evil\\x1b[2J\\x1b]0;pwned\\x07\\u{e0070}\\u{e0061}\\u{e0079}\\u{e007f}\n`),
        tenants.stdout,
      );

      const channels = await cli('channel', 'list', '--tenant', ids.tenant);
      assertShownSafely(channels, 'channel list');
      assert.equal(
        channels.stdout,
        `${ids.channel}  ${ids.tenant}  ok\\x0d\\x0achn_00000000000000000000000000  t_fake  payroll\n`,
        'one line',
      );

      const admins = await cli('admin', 'list', '--tenant', ids.tenant);
      assertShownSafely(admins, 'admin list');
      assert.ok(admins.stdout.includes('"Mallory\\x9b31m\\u202egnp.exe\\x7f"'), admins.stdout);
    });

    test('with --json the names come back exactly, and nothing a terminal acts on is printed raw', async () => {
      for (const [args, read] of [
        [['tenant', 'list'], (json: any) => json.items.find((t: { id: string }) => t.id === ids.tenant).name],
        [['channel', 'list', '--tenant', ids.tenant], (json: any) => json.items[0].name],
        [['admin', 'list', '--tenant', ids.tenant], (json: any) => json.items[0].displayName],
      ] as const) {
        const result = await cli(...args, '--json');
        assertShownSafely(result, `${args.join(' ')} --json`);
        assert.ok([HOSTILE.tenant, HOSTILE.channel, HOSTILE.admin].includes(read(result.json())), result.stdout);
      }
    });

    test('a refusal quoting what was typed shows it escaped on one line', async () => {
      const refused = await cli('backup', 'create', '--channel', 'red\u001b[31m\rfake', '--tenant', ids.tenant);
      assert.equal(refused.code, 1);
      assert.equal(RAW_CONTROL.exec(refused.stderr), null, JSON.stringify(refused.stderr));
      assert.match(refused.stderr, /red\\x1b\[31m\\x0dfake/);
    });

    test('names given in NFD are the NFC names: a channel created, a channel, folder and file named', async () => {
      const created = await cli('channel', 'create', '--tenant', fixture.tenant.id, '--name', nfd('Bücher'), '--json');
      assert.equal(created.code, 0, created.stderr);
      assert.equal(created.json().name, nfc('Bücher'));
      const backup = await cli('backup', 'create', '--channel', nfd('Bücher'), '--tenant', fixture.tenant.id, '--json');
      assert.equal(backup.code, 0, backup.stderr);
      assert.equal(backup.json().channelId, created.json().id);

      const versions = await cli(
        'file',
        'versions',
        '--channel',
        fixture.channel.id,
        '--folder',
        'Ablage',
        '--file',
        nfd('Lösung.txt'),
        '--json',
      );
      assert.equal(versions.code, 0, versions.stderr);
      assert.equal(versions.json().items.length, 1, 'the replaced upload, found by the NFD spelling');
      const restored = await cli(
        'file',
        'restore',
        '--channel',
        fixture.channel.id,
        '--folder',
        'Ablage',
        '--file',
        nfd('Lösung.txt'),
        '--version',
        versions.json().items[0].id,
        '--json',
      );
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal(restored.json().filename, nfc('Lösung.txt'));
    });
  });
}
