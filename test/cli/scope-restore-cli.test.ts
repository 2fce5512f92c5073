import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useServerAndCli } from '../helpers/cli.ts';
import { nextSecond } from '../helpers/files.ts';

// The CLI is a thin shell over the service every setup runs (scope-restore.test.ts): SQLite here.
describe('CLI folder restore and channel restore beside a running server', () => {
  const server = useServerAndCli('sqlite', 'Cli');
  const { cli } = server;

  test('dry run, folder restore with --delete, then its undo with channel restore', async () => {
    const { fixture, client } = server;
    assert.equal((await client.put('docs', 'a.txt', 'v1')).status, 201);
    assert.equal((await client.put('docs2', 'a.txt', 'neighbour')).status, 201);
    await nextSecond();
    assert.equal((await client.backup()).status, 201);
    const backup = (await client.backups()).json().items[0].timestamp as string;
    assert.equal((await client.put('docs', 'a.txt', 'v2')).status, 200);
    assert.equal((await client.put('docs', 'extra.txt', 'extra')).status, 201);
    assert.equal((await client.put('docs2', 'a.txt', 'neighbour changed')).status, 200);

    const base = ['folder', 'restore', '--channel', fixture.channel.id, '--folder', 'docs', '--backup', backup];
    const dry = await cli(...base, '--dry-run', '--delete');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^Dry run of the restore of folder docs: 2 change\(s\), 0 file\(s\) unchanged; nothing was changed/);
    assert.match(dry.stdout, /replace +docs\/a\.txt/);
    assert.match(dry.stdout, /delete +docs\/extra\.txt/);
    assert.equal((await client.get('docs', 'a.txt')).body, 'v2');

    const done = await cli(...base, '--delete', '--json');
    assert.equal(done.code, 0, done.stderr);
    const result = done.json();
    assert.equal(result.dryRun, false);
    assert.match(result.safetyBackup, /^\d{8}_\d{6}$/);
    assert.deepEqual(
      result.changes.map((c: { action: string; filename: string }) => `${c.action} ${c.filename}`),
      ['replace a.txt', 'delete extra.txt'],
    );
    assert.equal((await client.get('docs', 'a.txt')).body, 'v1');
    assert.equal((await client.get('docs', 'extra.txt')).status, 404);
    assert.equal((await client.get('docs2', 'a.txt')).body, 'neighbour changed', 'the neighbour folder is untouched');

    const undo = await cli('channel', 'restore', '--channel', fixture.channel.id, '--backup', result.safetyBackup, '--delete');
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, /^Restored channel chn_\S+: 2 change\(s\)/);
    assert.equal((await client.get('docs', 'a.txt')).body, 'v2');
    assert.equal((await client.get('docs', 'extra.txt')).body, 'extra');

    // --if-match: restore exactly the plan a dry run printed; refused (nothing restored) once the folder changed.
    const planJson = await cli(...base, '--dry-run', '--json');
    assert.equal(planJson.code, 0, planJson.stderr);
    const tag = planJson.json().etag as string;
    assert.match(tag, /^"[0-9a-f]{64}"$/, "JSON: the tag as the API's ETag carries it");
    const planText = await cli(...base, '--dry-run');
    const bare = tag.replaceAll('"', '');
    assert.match(planText.stdout, new RegExp(`Plan tag ${bare}: add --if-match ${bare} to restore exactly this plan`));
    assert.equal((await client.put('docs', 'a.txt', 'v3, after the plan')).status, 200);
    const stale = await cli(...base, '--if-match', bare, '--json');
    assert.equal(stale.code, 1);
    assert.equal(stale.json().error.code, 'PRECONDITION_FAILED');
    assert.match(
      stale.json().error.message,
      /^--if-match is not met: the folder docs changed since that plan; the current plan's tag is [0-9a-f]{64} /,
    );
    assert.equal((await client.get('docs', 'a.txt')).body, 'v3, after the plan', 'nothing restored');
    const fresh = (await cli(...base, '--dry-run', '--json')).json().etag as string;
    const exact = await cli(...base, '--if-match', fresh, '--json');
    assert.equal(exact.code, 0, exact.stderr);
    assert.equal(exact.json().etag, fresh);
    assert.equal((await client.get('docs', 'a.txt')).body, 'v1');
    const malformed = await cli(...base, '--if-match', 'abc');
    assert.equal(malformed.code, 2, 'a tag that --dry-run cannot have printed is a usage error');
    assert.match(malformed.stderr, /--if-match must be the plan tag --dry-run prints/);

    const missing = await cli('channel', 'restore', '--channel', fixture.channel.id);
    assert.equal(missing.code, 2, 'a missing --backup is a usage error');
    const unknown = await cli('channel', 'restore', '--channel', fixture.channel.id, '--backup', '20000101_000000', '--json');
    assert.equal(unknown.code, 1);
    assert.equal(unknown.json().error.code, 'BACKUP_NOT_FOUND');
  });
});
