import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { useServerAndCli } from '../helpers/cli.ts';
import { nextSecond, sha256, storedBytes } from '../helpers/files.ts';

for (const setup of FILE_SETUPS) {
  describe(`CLI backups and restores beside a running server (${setup})`, () => {
    const server = useServerAndCli(setup, 'Cli');
    const cli = (...args: string[]) => server.cli(...args, '--json');

    test('backup create, change, file restore, restore again, backup list', async () => {
      const { svc, fixture, client } = server;
      assert.equal((await client.put('docs', 'a.txt', 'v1')).status, 201);
      await nextSecond();
      const created = await cli('backup', 'create', '--channel', fixture.channel.id);
      assert.equal(created.code, 0, created.stderr);
      const backup = created.json();
      assert.match(backup.timestamp, /^\d{8}_\d{6}$/);
      assert.deepEqual(
        { channelId: backup.channelId, files: backup.files, bytes: backup.bytes, origin: backup.origin },
        { channelId: fixture.channel.id, files: 1, bytes: 2, origin: 'cli' },
      );

      assert.equal((await client.put('docs', 'a.txt', 'v2')).status, 200);
      const restored = await cli(
        'file',
        'restore',
        '--channel',
        fixture.channel.name,
        '--tenant',
        fixture.tenant.id,
        '--folder',
        'docs',
        '--file',
        'a.txt',
        '--backup',
        backup.timestamp,
      );
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal(restored.json().changed, true);
      assert.equal(restored.json().sha256, sha256('v1'));
      assert.equal(restored.json().source.backupTimestamp, backup.timestamp);
      assert.match(restored.json().keptVersionId, /^ver_/);
      const record = await svc.service.store.files.getFile(fixture.channel.id, 'docs', 'a.txt');
      assert.equal((await storedBytes(svc.config, record!.blobKey))?.toString(), 'v1');
      assert.equal((await client.get('docs', 'a.txt')).body, 'v1', 'the server serves what the CLI restored');

      const again = await cli('file', 'restore', '--channel', fixture.channel.id, '--folder', 'docs', '--file', 'a.txt');
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.json().changed, false);

      const undo = await cli(
        'file',
        'restore',
        '--channel',
        fixture.channel.id,
        '--folder',
        'docs',
        '--file',
        'a.txt',
        '--version',
        restored.json().keptVersionId,
      );
      assert.equal(undo.json().sha256, sha256('v2'));

      const versions = await cli('file', 'versions', '--channel', fixture.channel.id, '--folder', 'docs', '--file', 'a.txt');
      assert.ok(versions.json().items.some((v: { id: string }) => v.id === restored.json().keptVersionId));

      const listed = await cli('backup', 'list', '--channel', fixture.channel.id);
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual(
        listed
          .json()
          .items.map((b: { timestamp: string; origin: string; createdBy: string | null }) => [b.timestamp, b.origin, b.createdBy]),
        [[backup.timestamp, 'cli', null]],
      );
      assert.equal(listed.json().next, null);

      const audit = (await client.audit()).json().items;
      assert.deepEqual(
        audit.slice(0, 4).map((e: { action: string; adminId: string | null }) => [e.action, e.adminId]),
        [
          ['restore', null],
          ['restore', null],
          ['restore', null],
          ['upload', fixture.owner.id],
        ],
      );

      const text = await server.cli('backup', 'list', '--channel', fixture.channel.id);
      assert.match(text.stdout, new RegExp(`^${backup.timestamp} +1 files +2 bytes +by the CLI$`, 'm'));
    });

    test('refusals exit 1 with the error code; wrong use, a malformed option value included, exits 2', async () => {
      const { fixture } = server;
      const base = ['file', 'restore', '--channel', fixture.channel.id, '--folder', 'docs', '--file'];
      const cases: [string[], string, number][] = [
        [[...base, 'a.txt', '--backup', '20000101_000000'], 'BACKUP_NOT_FOUND', 1],
        [[...base, 'a.txt', '--backup', 'yesterday'], 'INVALID_TIMESTAMP', 2],
        [[...base, 'never.txt'], 'BACKUP_FILE_NOT_FOUND', 1],
        [[...base, '..'], 'INVALID_PATH', 2],
        [['backup', 'create', '--channel', 'chn_00000000000000000000000000'], 'CHANNEL_NOT_FOUND', 1],
        [['backup', 'list', '--channel', 'main'], 'CHANNEL_NOT_FOUND', 1],
      ];
      for (const [args, code, exitCode] of cases) {
        const result = await cli(...args);
        assert.equal(result.code, exitCode, `${args.join(' ')}: ${result.stderr}`);
        assert.equal(result.json().error.code, code);
        assert.ok(result.stderr.length > 10);
      }
      assert.match((await cli('backup', 'list', '--channel', 'main')).stderr, /--tenant/);
      assert.equal((await cli('backup', 'create')).code, 2);
      assert.equal((await cli('backup', 'list', '--channel', fixture.channel.id, '--limit', '0')).code, 2);
    });
  });
}
