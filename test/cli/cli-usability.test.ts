import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { COMMANDS, commandGroups } from '../../src/cli/command-table.ts';
import { SETTINGS } from '../../src/config/settings.ts';
import { ALL_PERMISSIONS } from '../../src/model/permissions.ts';
import { runCli } from '../helpers/cli.ts';
import { nextSecond } from '../helpers/files.ts';
import { newWallet } from '../helpers/wallets.ts';

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const PACKAGE_VERSION = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every command as `wallet-admin --help` lists it: the words before the summary. */
function listedCommands(help: string): string[][] {
  const start = help.indexOf('Commands:\n');
  const end = help.indexOf('\n\n', start);
  return help
    .slice(start + 'Commands:\n'.length, end)
    .split('\n')
    .map((line) => line.trim().split(/ {2,}/)[0]!.split(' '));
}

/** ` FILE` for `audit verify FILE`: the placeholder of the option a lone word fills, as --help shows it. */
function positionalWord(command: (typeof COMMANDS)[number]): string {
  return command.positional === undefined ? '' : ` ${escapeRegExp(command.options[command.positional]?.placeholder ?? 'VALUE')}`;
}

describe('CLI usability', () => {
  let dataDir: string;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCli(args, env);

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-cli-usability-'));
    env = { DATA_DIR: dataDir };
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  test('--version, and --help listing every command', async () => {
    const version = await cli('--version');
    assert.deepEqual([version.code, version.stdout.trim()], [0, PACKAGE_VERSION]);

    const help = await cli('--help');
    assert.equal(help.code, 0);
    assert.deepEqual(
      listedCommands(help.stdout).map((words) => words.join(' ')),
      COMMANDS.map((c) => c.words.join(' ')),
    );
    const bare = await cli('channel');
    assert.equal(bare.code, 2, 'a group alone is an incomplete command');
    assert.match(bare.stderr, /^ {2}list /m);
  });

  // From the CLI's own table, so that a command or group added later is asked too.
  test('-h and --help on every group list its subcommands', async () => {
    const groups = commandGroups(COMMANDS);
    assert.ok(groups.some((g) => g.join(' ') === 'tenant feature') && groups.some((g) => g.join(' ') === 'folder'));
    for (const group of groups) {
      const subcommands = COMMANDS.filter((c) => group.every((w, i) => c.words[i] === w)).map((c) => c.words.slice(group.length).join(' '));
      for (const flag of ['-h', '--help']) {
        const answer = await cli(...group, flag);
        const asked = `${group.join(' ')} ${flag}`;
        assert.equal(answer.code, 0, `${asked}: ${answer.stderr}`);
        assert.match(answer.stdout, new RegExp(`^Usage: wallet-admin ${group.join(' ')} <subcommand>`), asked);
        for (const sub of subcommands) assert.match(answer.stdout, new RegExp(`^ {2}${sub} `, 'm'), `${asked}: ${sub}`);
      }
    }
  });

  test('-h and --help on every command list each of its options', async () => {
    for (const command of COMMANDS) {
      for (const flag of ['-h', '--help']) {
        const answer = await cli(...command.words, flag);
        const asked = `${command.words.join(' ')} ${flag}`;
        assert.equal(answer.code, 0, `${asked}: ${answer.stderr}`);
        assert.match(
          answer.stdout,
          // A command that takes its value as a word (audit verify FILE, proposal show ID) shows that word.
          new RegExp(
            `^Usage: wallet-admin ${command.words.join(' ')}${positionalWord(command)} \\[options\\]\n\n${escapeRegExp(command.summary)}\n`,
          ),
          asked,
        );
        for (const [name, spec] of Object.entries(command.options)) {
          assert.match(answer.stdout, new RegExp(`^ {2}--${name}( \\S+)? +${escapeRegExp(spec.description)}`, 'm'), `${asked}: --${name}`);
        }
        assert.match(answer.stdout, /^ {2}-h, --help /m, asked);
        // --json where there is a result to print; serve has none.
        assert.equal(/^ {2}--json /m.test(answer.stdout), command.printsJson !== false, `${asked}: --json`);
      }
    }
    const serve = await cli('serve', '--json');
    assert.equal(serve.code, 2, 'serve takes no --json');
    assert.equal(serve.stdout, '');
    const grant = await cli('admin', 'grant', '--help');
    assert.match(grant.stdout, /--admin ID +Admin id \(adm_…\) \(required\)/);
    for (const permission of ALL_PERMISSIONS) assert.ok(grant.stdout.includes(permission), permission);
  });

  test('serve --help lists every setting with its default', async () => {
    const help = await cli('serve', '--help');
    assert.equal(help.code, 0, help.stderr);
    for (const setting of SETTINGS) {
      const line = help.stdout.split('\n').find((l) => l.trim().startsWith(`${setting.name} `));
      assert.ok(line, setting.name);
      assert.ok(line.includes(`(default: ${setting.fallback})`), line);
    }
  });

  test('unknown commands and options are usage errors naming what was wrong', async () => {
    const unknown = await cli('tenant', 'frobnicate');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown command "tenant frobnicate"; the subcommands of "tenant" are create, list, feature add/);
    const option = await cli('tenant', 'list', '--bogus');
    assert.equal(option.code, 2);
    assert.match(option.stderr, /--bogus/);
    assert.match(option.stderr, /wallet-admin tenant list --help/);
  });

  test('tenants, admins and channels: listed, named by name, times in RFC 3339, permissions checked', async () => {
    const tenant = await cli('tenant', 'create', '--name', 'Acme', '--json');
    assert.equal(tenant.code, 0, tenant.stderr);
    const tenantId = tenant.json().id;
    const other = (await cli('tenant', 'create', '--name', 'Other', '--json')).json().id;
    const ownerRun = await cli('admin', 'create', '--tenant', tenantId, '--wallet', newWallet().address, '--name', 'Owner', '--json');
    const owner = ownerRun.json();
    const member = (
      await cli('admin', 'create', '--tenant', tenantId, '--wallet', newWallet().address, '--name', 'Member', '--owner', owner.id, '--json')
    ).json();
    const channel = (await cli('channel', 'create', '--tenant', tenantId, '--name', 'news', '--json')).json();
    await cli('channel', 'create', '--tenant', other, '--name', 'news', '--json');

    const tenants = await cli('tenant', 'list', '--json');
    assert.deepEqual(
      tenants.json().items.map((t: { id: string; name: string }) => [t.id, t.name]),
      [
        [tenantId, 'Acme'],
        [other, 'Other'],
      ],
    );
    assert.match((await cli('tenant', 'list')).stdout, new RegExp(`^${tenantId}  Acme$`, 'm'));
    const channels = await cli('channel', 'list', '--tenant', tenantId, '--json');
    assert.deepEqual(
      channels.json().items.map((c: { id: string; name: string }) => [c.id, c.name]),
      [[channel.id, 'news']],
    );
    assert.equal((await cli('channel', 'list', '--json')).json().items.length, 2, 'every tenant');
    assert.match((await cli('channel', 'list')).stdout, new RegExp(`^${channel.id}  ${tenantId}  news$`, 'm'));

    // A channel by name, with its tenant; without it the refusal names the tenants that have one.
    const linked = await cli('channel', 'link', '--channel', 'news', '--tenant', tenantId, '--admin', member.id, '--json');
    assert.deepEqual(linked.json(), { channelId: channel.id, adminId: member.id, linked: true });
    const ambiguous = await cli('channel', 'unlink', '--channel', 'news', '--admin', member.id);
    assert.equal(ambiguous.code, 1);
    assert.ok(ambiguous.stderr.includes(tenantId) && ambiguous.stderr.includes(other), ambiguous.stderr);
    const backup = await cli('backup', 'create', '--channel', 'news', '--tenant', tenantId, '--json');
    assert.equal(backup.json().channelId, channel.id, backup.stderr);

    // Every time of the --json output is an RFC 3339 UTC string.
    const admins = await cli('admin', 'list', '--tenant', tenantId, '--json');
    const times = [
      tenant.json().createdAt,
      ownerRun.json().createdAt,
      ownerRun.json().updatedAt,
      channel.createdAt,
      backup.json().createdAt,
      ...tenants.json().items.map((t: { createdAt: string }) => t.createdAt),
      ...channels.json().items.map((c: { createdAt: string }) => c.createdAt),
      ...admins.json().items.flatMap((a: { createdAt: string; updatedAt: string }) => [a.createdAt, a.updatedAt]),
    ];
    for (const time of times) assert.match(time, RFC3339_UTC);
    const loggedOut = await cli('admin', 'logout', '--admin', member.id, '--json');
    assert.match(loggedOut.json().signedOutBefore, RFC3339_UTC);

    // An owner holds every permission, and admin list says so.
    const ownerListed = admins.json().items.find((a: { id: string }) => a.id === owner.id);
    assert.deepEqual(ownerListed.effectivePermissions, [...ALL_PERMISSIONS].sort());
    const ownerLine = (await cli('admin', 'list', '--tenant', tenantId)).stdout.split('\n').find((l) => l.startsWith(owner.id));
    assert.ok(ownerLine?.includes(`permissions: ${[...ALL_PERMISSIONS].sort().join(', ')}`), ownerLine);

    // A misspelt permission is refused with the valid ones, and nothing is stored.
    const typo = await cli('admin', 'grant', '--admin', member.id, '--permission', 'files:restor', '--json');
    assert.equal(typo.code, 2);
    for (const permission of ALL_PERMISSIONS) assert.ok(typo.stderr.includes(permission), typo.stderr);
    const created = await cli(
      'admin',
      'create',
      '--tenant',
      tenantId,
      '--wallet',
      newWallet().address,
      '--name',
      'T',
      '--owner',
      owner.id,
      '--permission',
      'audit:reed',
    );
    assert.equal(created.code, 2);
    assert.match(created.stderr, /^wallet-admin: --permission must be one of files:read, .* \(got "audit:reed"\)/);
    const after = (await cli('admin', 'list', '--tenant', tenantId, '--json')).json().items;
    assert.equal(after.length, 2, 'no admin was created');
    assert.deepEqual(after.find((a: { id: string }) => a.id === member.id).permissions, []);
    assert.equal((await cli('admin', 'revoke', '--admin', member.id, '--permission', 'files:restor')).code, 2);

    // Features are labels of the operator's own: any of one shape, and help says so.
    const featureHelp = (await cli('tenant', 'feature', 'add', '--help')).stdout;
    assert.match(featureHelp, /a label of your own/i);
    assert.match(featureHelp, /gates nothing/);
    assert.equal((await cli('tenant', 'feature', 'add', '--tenant', tenantId, '--feature', 'editor:v2')).code, 0);
    for (const feature of ['Beta', 'new ui', 'tab\there', 'x-']) {
      const refused = await cli('tenant', 'feature', 'add', '--tenant', tenantId, '--feature', feature);
      assert.equal(refused.code, 2, feature);
      assert.match(refused.stderr, /^wallet-admin: --feature must be lowercase letters and digits/, feature);
    }
    assert.equal((await cli('tenant', 'feature', 'add', '--tenant', tenantId, '--feature', ' ')).code, 2, 'blank');
    assert.deepEqual((await cli('tenant', 'list', '--json')).json().items.find((t: { id: string }) => t.id === tenantId).features, [
      'editor:v2',
    ]);
  });

  test('option errors name the CLI options, not the API parameters', async () => {
    const tenantId = (await cli('tenant', 'create', '--name', 'Options', '--json')).json().id;
    await cli('channel', 'create', '--tenant', tenantId, '--name', 'main');
    const base = ['--channel', 'main', '--tenant', tenantId];
    const cases: [string[], RegExp][] = [
      [['file', 'restore', ...base, '--folder', 'd', '--file', 'f', '--backup', 'yesterday'], /--backup must be a real UTC date/],
      [['file', 'restore', ...base, '--folder', 'd', '--file', 'f', '--at', 'noon'], /--at must be an RFC 3339 date-time/],
      [
        ['file', 'restore', ...base, '--folder', 'd', '--file', 'f', '--backup', '20260101_000000', '--version', 'ver_x'],
        /--backup and --version/,
      ],
      [['backup', 'diff', ...base, '--from', '2026-01-01'], /--from must be/],
      [
        ['backup', 'diff', ...base, '--from-at', '2026-01-01T00:00:00Z', '--to', '20260101_000000', '--to-at', '2026-01-01T00:00:00Z'],
        /--to and --to-at/,
      ],
      [['channel', 'restore', ...base, '--at', '2999-01-01T00:00:00Z'], /--at \(2999-01-01T00:00:00Z\) is in the future/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(...args);
      assert.notEqual(result.code, 0, args.join(' '));
      assert.match(result.stderr, message, args.join(' '));
      assert.doesNotMatch(result.stderr, /backupTimestamp|versionId|fromAt|toAt/, args.join(' '));
    }
  });

  test('malformed or inverted option values: usage errors (exit 2) in the options typed, and nothing done', async () => {
    const tenantId = (await cli('tenant', 'create', '--name', 'Ranges', '--json')).json().id;
    const channel = (await cli('channel', 'create', '--tenant', tenantId, '--name', 'main', '--json')).json().id;
    const diff = ['backup', 'diff', '--channel', channel];
    // Two backups a second apart, and an instant between them: ends the channel has, in both forms.
    const older = (await cli('backup', 'create', '--channel', channel, '--json')).json().timestamp;
    const between = new Date().toISOString();
    await nextSecond();
    const newer = (await cli('backup', 'create', '--channel', channel, '--json')).json().timestamp;
    const after = new Date().toISOString();
    const key = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
    const cases: [string[], RegExp][] = [
      [
        [...diff, '--from-at', after, '--to-at', between],
        new RegExp(`--to-at \\(${between}\\) is older than --from-at \\(${after}\\); swap them`),
      ],
      [[...diff, '--from', newer, '--to', older], new RegExp(`--to \\(${older}\\) is older than --from \\(${newer}\\); swap them`)],
      [[...diff, '--from', newer, '--to-at', between], new RegExp(`--to-at \\(${between}\\) is older than --from \\(${newer}\\)`)],
      [[...diff, '--from-at', after, '--to', older], new RegExp(`--to \\(${older}\\) is older than --from-at \\(${after}\\)`)],
      [[...diff, '--from', '20260101_000000', '--folder', 'a/b'], /^wallet-admin: --folder must not contain '\/'/],
      [['file', 'versions', '--channel', channel, '--folder', 'docs', '--file', '..'], /^wallet-admin: --file must not be '\.' or '\.\.'/],
      [['sign', '--private-key', '0x12'], /^wallet-admin: --private-key must be 64 hexadecimal digits/],
      [['sign', '--print-message', '--address', '0x12'], /^wallet-admin: --address must be 0x followed by 40 hexadecimal digits/],
      [['sign', '--private-key', key, '--nonce', 'ab'], /^wallet-admin: --nonce: "ab" is not at least 8 letters/],
      [['sign', '--private-key', key, '--domain', 'a/b'], /^wallet-admin: --domain: "a\/b" is not an RFC 3986 authority/],
      [['sign', '--private-key', key, '--ttl', '99999999999999'], /--ttl must be a whole number from 1 to/],
      [['sign', '--private-key', key, '--plain', '--uri', 'http://x'], /--uri shapes a Sign-In with Ethereum message, not a --plain one/],
      [['admin', 'create', '--tenant', tenantId, '--wallet', '0x12', '--name', 'A'], /^wallet-admin: --wallet must be 0x followed by 40/],
      [['tenant', 'create', '--name', 'n'.repeat(201)], /^wallet-admin: --name must be at most 200 characters/],
      [['admin', 'set-status', '--admin', 'adm_x', '--status', 'RETIRED'], /^wallet-admin: --status must be ACTIVE or SUSPENDED/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(...args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
      assert.match(result.stderr, new RegExp(`Run "wallet-admin ${args[0]}( ${args[1]})? --help" for its options`), args.join(' '));
      assert.doesNotMatch(result.stderr, /backupTimestamp|fromAt|toAt|folder name|file name|Wallet address|Tenant name|The private key/);
    }
    const tenants = (await cli('tenant', 'list', '--json')).json().items.map((t: { name: string }) => t.name);
    assert.ok(!tenants.some((n: string) => n.startsWith('nnn')), 'no tenant was created');
    assert.deepEqual((await cli('admin', 'list', '--tenant', tenantId, '--json')).json().items, [], 'no admin was created');
  });
});
