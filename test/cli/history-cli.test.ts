import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { useServerAndCli } from '../helpers/cli.ts';
import { nextSecond, sha256 } from '../helpers/files.ts';

for (const setup of FILE_SETUPS) {
  describe(`CLI deleted files and backup diff beside a running server (${setup})`, () => {
    const server = useServerAndCli(setup, 'HistoryCli');
    const { cli } = server;
    let from: string;

    test('file deleted lists what the server deleted; backup diff lists the changes; bad input exits non-zero', async () => {
      const { fixture, client } = server;
      assert.equal((await client.put('docs', 'a.txt', 'one')).status, 201);
      assert.equal((await client.put('docs', 'b.txt', 'bee')).status, 201);
      await nextSecond();
      from = (await client.backup()).json().timestamp as string;
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
      assert.equal(malformed.code, 2, 'a malformed option is wrong use');
      assert.equal(JSON.parse(malformed.stdout || malformed.stderr).error.code, 'INVALID_TIMESTAMP');
      const missing = await cli('backup', 'diff', '--channel', fixture.channel.id);
      assert.equal(missing.code, 2, 'a usage error');
      assert.match(missing.stderr, /--from/);
    });

    // What the CLI adds here (paging, its option names) is the same on every backend, which the services' tests
    // cover: on the first setup only (SQLite, also in the unit tier).
    const cliOnly = setup === FILE_SETUPS[0] ? test : () => {};
    cliOnly('paged lists go on with --cursor NEXT; an end before the start is refused with the options as typed', async () => {
      const { fixture, client } = server;
      const channel = fixture.channel.id;
      const diff = ['backup', 'diff', '--channel', channel, '--from', from, '--folder', 'docs'];
      const first = await cli(...diff, '--limit', '1');
      assert.equal(first.code, 0, first.stderr);
      const next = /^More: add --cursor (\S+)$/m.exec(first.stdout)?.[1];
      assert.ok(next, `a full page says how to go on: ${first.stdout}`);
      assert.match(first.stdout, /^changed .* docs\/a\.txt$/m);
      const second = await cli(...diff, '--limit', '1', '--cursor', next, '--json');
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual([second.json().items.map((c: { filename: string }) => c.filename), second.json().next], [['b.txt'], null]);

      for (const name of ['p1.txt', 'p2.txt']) {
        assert.equal((await client.put('paged', name, name)).status, 201);
        assert.equal((await client.delete('paged', name)).status, 204);
      }
      const deleted = ['file', 'deleted', '--channel', channel, '--folder', 'paged', '--limit', '1'];
      const page1 = await cli(...deleted, '--json');
      assert.equal(page1.code, 0, page1.stderr);
      assert.equal(page1.json().items[0].filename, 'p1.txt');
      const page2 = await cli(...deleted, '--cursor', page1.json().next);
      assert.equal(page2.code, 0, page2.stderr);
      assert.match(page2.stdout, /p2\.txt\n$/);
      assert.doesNotMatch(page2.stdout, /More:/, 'the last page says nothing more');
      const forged = await cli(...deleted, '--cursor', 'not-a-cursor', '--json');
      assert.equal(forged.code, 2, 'a malformed option value is wrong use');
      assert.equal(forged.json().error.code, 'VALIDATION_FAILED');
      assert.match(forged.stderr, /^wallet-admin: --cursor is not one this service issued/);

      const afterBackup = new Date().toISOString();
      const inverted = await cli('backup', 'diff', '--channel', channel, '--from-at', afterBackup, '--to', from);
      assert.equal(inverted.code, 2, 'an inverted range is wrong use');
      assert.match(inverted.stderr, new RegExp(`--to \\(${from}\\) is older than --from-at \\(${afterBackup}\\); swap them`));
    });

    test('instants: file restore --at, folder and channel restore --at, backup diff --from-at/--to-at', async () => {
      const { fixture, client } = server;
      const ms = () => new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal((await client.put('at', 'x.txt', 'x one')).status, 201);
      await ms();
      const first = new Date().toISOString();
      await ms();
      assert.equal((await client.put('at', 'x.txt', 'x two')).status, 200);
      assert.equal((await client.put('at', 'y.txt', 'y')).status, 201);
      await ms();
      const second = new Date().toISOString();
      const channel = fixture.channel.id;

      const diff = await cli('backup', 'diff', '--channel', channel, '--from-at', first, '--to-at', second, '--folder', 'at', '--json');
      assert.equal(diff.code, 0, diff.stderr);
      assert.deepEqual(
        diff.json().items.map((c: { filename: string; change: string }) => [c.filename, c.change]),
        [
          ['x.txt', 'changed'],
          ['y.txt', 'added'],
        ],
      );
      const restored = await cli('file', 'restore', '--channel', channel, '--folder', 'at', '--file', 'x.txt', '--at', first, '--json');
      assert.equal(restored.code, 0, restored.stderr);
      assert.equal(restored.json().changed, true);
      assert.equal((await client.get('at', 'x.txt')).body, 'x one');
      const folder = await cli('folder', 'restore', '--channel', channel, '--folder', 'at', '--at', second, '--json');
      assert.equal(folder.code, 0, folder.stderr);
      assert.equal((await client.get('at', 'x.txt')).body, 'x two');
      const plan = await cli('channel', 'restore', '--channel', channel, '--at', first, '--dry-run', '--delete', '--json');
      assert.equal(plan.code, 0, plan.stderr);
      assert.ok(plan.json().changes.some((c: { filename: string; action: string }) => c.filename === 'y.txt' && c.action === 'delete'));

      const before = await cli(
        'file',
        'restore',
        '--channel',
        channel,
        '--folder',
        'at',
        '--file',
        'x.txt',
        '--at',
        new Date(fixture.channel.createdAt).toISOString(),
        '--json',
      );
      assert.equal(before.code, 1);
      assert.equal(JSON.parse(before.stdout || before.stderr).error.code, 'BACKUP_FILE_NOT_FOUND', 'x.txt did not exist yet');
      const typo = await cli(
        'file',
        'restore',
        '--channel',
        channel,
        '--folder',
        'at',
        '--file',
        'x.txt',
        '--at',
        '2000-01-01T00:00:00Z',
        '--json',
      );
      assert.equal(typo.code, 1);
      assert.equal(JSON.parse(typo.stdout || typo.stderr).error.code, 'INSTANT_BEFORE_CHANNEL', 'the channel did not exist yet');
      const both = await cli('channel', 'restore', '--channel', channel, '--at', first, '--backup', '20260101_000000');
      assert.equal(both.code, 2, 'a usage error');
    });
  });
}
