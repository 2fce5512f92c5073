import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { scryptKeystore } from '../helpers/keystores.ts';
import { noteSecret } from '../helpers/log-secrets.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn, type TestWallet } from '../helpers/wallets.ts';

const PASSWORD = 'approvals password';

/*
 * Quorum from the CLI over HTTP (docs/cli.md, docs/approvals.md): the owner sets a 2-of-2 policy with
 * `policy set`, a channel restore asked remotely is held (exit 3, the proposal's id), and it runs once
 * the proposer and a second admin have approved it with `proposal approve`, each with its own keystore.
 * SQLite only: the CLI talks HTTP, and the engines behind the service are the quorum tests' concern
 * (test/approvals/quorum.unit.test.ts runs both).
 */
describe('wallet-admin policy and proposal commands (remote mode)', () => {
  let svc: TestService;
  let fixture: TenantFixture;
  let dir: string;
  let env: Record<string, string>;
  let passwordFile: string;
  let files: FilesClient;
  const bo = newWallet();
  const cli = (...args: string[]) => runCli(args, env);
  const keystoreOf = async (name: string, wallet: TestWallet) => {
    const file = path.join(dir, `${name}.json`);
    await writeFile(file, await scryptKeystore(wallet, PASSWORD));
    return file;
  };
  const asOwner = ['--profile', 'owner'];
  let asBo: string[];
  const ok = async (...args: string[]) => {
    const result = await cli(...args, '--json');
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.json();
  };
  const content = async (name: string) => {
    const got = await files.get('docs', name);
    return got.status === 200 ? got.body : null;
  };

  before(async () => {
    noteSecret(PASSWORD);
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'Quorum CLI');
    files = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-approvals-'));
    passwordFile = path.join(dir, 'password.txt');
    await writeFile(passwordFile, `${PASSWORD}\n`);
    env = { XDG_CONFIG_HOME: path.join(dir, 'config') };
    const saved = await cli(
      'profile',
      'save',
      '--name',
      'owner',
      '--url',
      svc.baseUrl,
      '--keystore',
      await keystoreOf('owner', fixture.ownerWallet),
      '--password-file',
      passwordFile,
    );
    assert.equal(saved.code, 0, saved.stderr);
    asBo = ['--url', svc.baseUrl, '--keystore', await keystoreOf('bo', bo), '--password-file', passwordFile];
    // The second approver: restores on the channel, as the owner's sub-admin.
    await ok(
      'admin',
      'create',
      ...asOwner,
      '--wallet',
      bo.address,
      '--name',
      'Bo',
      '--permission',
      'files:read',
      '--permission',
      'files:restore',
      '--channel',
      fixture.channel.id,
    );
  });
  after(async () => {
    await svc?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** docs/a.txt backed up, then changed, and c.txt added: a restore with --delete replaces a and deletes c. */
  async function drift(tag: string): Promise<string> {
    assert.ok([200, 201].includes((await files.put('docs', 'a.txt', `a-${tag}-old`)).status));
    await files.delete('docs', 'c.txt');
    await nextSecond();
    const made = await files.backup();
    assert.equal(made.status, 201, made.body);
    assert.equal((await files.put('docs', 'a.txt', `a-${tag}-new`)).status, 200);
    assert.equal((await files.put('docs', 'c.txt', 'c')).status, 201);
    return made.json().timestamp;
  }

  /** A channel restore asked over HTTP: held, exit 3, and the proposal's id printed. */
  async function heldRestore(backup: string): Promise<string> {
    const held = await cli('channel', 'restore', ...asOwner, '--channel', fixture.channel.id, '--backup', backup, '--delete');
    assert.equal(held.code, 3, `${held.stdout}${held.stderr}`);
    const id = /^Held for approval: proposal (prp_\w+) /.exec(held.stdout)?.[1];
    assert.ok(id, held.stdout);
    return id;
  }

  test('bad rules are refused before anything is sent: exit 2, naming the option', async () => {
    const unknown = await cli('policy', 'set', ...asOwner, '--rule', 'channel.nuke=2:files:restore');
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /--rule names an unknown operation "channel\.nuke"; the operations are folder\.restore, channel\.restore/);
    const zero = await cli('policy', 'set', ...asOwner, '--rule', 'channel.restore=0:files:restore');
    assert.equal(zero.code, 2, zero.stderr);
    assert.match(zero.stderr, /--rule channel\.restore: approvals must be from 1 to 20 \(got 0\)/);
    const shape = await cli('policy', 'set', ...asOwner, '--rule', 'channel.restore:2');
    assert.equal(shape.code, 2);
    assert.match(shape.stderr, /--rule must be OPERATION=APPROVALS:PERMISSION/);
    const permission = await cli('policy', 'set', ...asOwner, '--rule', 'channel.restore=2:files:everything', '--json');
    assert.equal(permission.code, 2);
    assert.equal(permission.json().error.code, 'USAGE');
    const neither = await cli('policy', 'set', ...asOwner);
    assert.equal(neither.code, 2);
    assert.match(neither.stderr, /--none to drop every rule/);
    assert.equal((await ok('policy', 'show', ...asOwner)).revision, 0, 'nothing was stored');
  });

  test('a 2-of-2 policy; a held channel restore runs once the proposer and a second admin approve it', async () => {
    const set = await ok('policy', 'set', ...asOwner, '--rule', 'channel.restore=2:files:restore');
    assert.deepEqual(set.rules, [{ operation: 'channel.restore', approvals: 2, permission: 'files:restore' }]);
    const shown = await cli('policy', 'show', ...asOwner);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^Policy of the tenant \S+ \(revision 1\):\n {2}channel\.restore=2:files:restore$/m);
    const onChannel = await cli('policy', 'show', ...asOwner, '--channel', fixture.channel.id);
    assert.match(onChannel.stdout, /The tenant's rules apply too \(the stricter wins\):\n {2}channel\.restore=2:files:restore/);

    const backup = await drift('1');
    const id = await heldRestore(backup);
    assert.equal(await content('a.txt'), 'a-1-new', 'nothing restored while held');

    const details = await cli('proposal', 'show', id, ...asOwner);
    assert.equal(details.code, 0, details.stderr);
    assert.match(details.stdout, new RegExp(`^Proposal ${id}: channel\\.restore, pending$`, 'm'));
    assert.match(details.stdout, /^Approvals: 0\/2 counted/m);
    assert.match(details.stdout, new RegExp(`^ {2}proposal: ${id}$`, 'm'));
    assert.match(details.stdout, new RegExp(`^ {2}source: backup:${backup}$`, 'm'));
    assert.match(details.stdout, /^ {2}delete: true$/m);
    assert.match(details.stdout, /"action": "delete"/, 'the plan is printed');

    const first = await ok('proposal', 'approve', id, ...asOwner);
    assert.deepEqual([first.status, first.approvalsCounted], ['pending', 1]);
    assert.equal(await content('a.txt'), 'a-1-new', 'one approval of two runs nothing');
    const again = await cli('proposal', 'approve', id, ...asOwner, '--json');
    assert.equal(again.code, 1);
    assert.equal(again.json().error.code, 'INTENT_ALREADY_GIVEN');

    const second = await cli('proposal', 'approve', id, ...asBo);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, new RegExp(`^Approved proposal ${id} \\(.*\\): 2/2 approvals counted; executed$`, 'm'));
    assert.equal(await content('a.txt'), 'a-1-old');
    assert.equal(await content('c.txt'), null, 'deleted by the restore');

    const executed = await ok('proposal', 'list', ...asOwner, '--status', 'executed');
    assert.deepEqual(
      executed.items.map((p: { id: string }) => p.id),
      [id],
    );
    const listed = await cli('proposal', 'list', ...asOwner, '--status', 'executed');
    assert.match(listed.stdout, new RegExp(`^${id} {2}executed {2}channel\\.restore {2}2/2 {2}`));
    const badStatus = await cli('proposal', 'list', ...asOwner, '--status', 'done');
    assert.equal(badStatus.code, 2);
    assert.match(badStatus.stderr, /--status must be one of pending, running, executed/);

    // The log with the intents that ran it: exported over HTTP, verified offline, against the head published now.
    const exported = await cli('audit', 'export', ...asOwner);
    assert.equal(exported.code, 0, exported.stderr);
    const exportFile = path.join(dir, 'audit.jsonl');
    await writeFile(exportFile, exported.stdout);
    const head = await ok('audit', 'head', ...asOwner);
    const headFile = path.join(dir, 'head.json');
    await writeFile(headFile, JSON.stringify(head));
    assert.equal(head.seq, exported.stdout.trim().split('\n').length);
    const verified = await cli('audit', 'verify', exportFile, '--head-file', headFile);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^Verified \d+ entries/);
    assert.match(verified.stdout, /Intents: 2 entries, 4 signatures recovered/);
    // One byte changed in the entry that holds the intents: the verifier names it.
    const tampered = exported.stdout.replace('"required":2', '"required":1');
    assert.notEqual(tampered, exported.stdout);
    await writeFile(exportFile, tampered);
    const refused = await cli('audit', 'verify', exportFile);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /AUDIT_CHAIN_BROKEN|does not verify at entry seq \d+/);
  });

  test('a wallet the CLI cannot hold: print the typed data, add its signature; the proposer withdraws', async () => {
    const id = await heldRestore(await drift('2'));
    const printed = await cli('proposal', 'approve', id, ...asOwner, '--print-typed-data');
    assert.equal(printed.code, 0, printed.stderr);
    const typedData = JSON.parse(printed.stdout);
    assert.equal(typedData.message.proposal, id);
    // Signed elsewhere, as a hardware wallet would: eth_signTypedData_v4 of exactly what was printed.
    const { EIP712Domain: _domain, ...types } = typedData.types;
    const signature = await fixture.ownerWallet.account.signTypedData({ ...typedData, types });
    const added = await ok('proposal', 'approve', id, ...asOwner, '--signature', signature);
    assert.deepEqual([added.status, added.approvalsCounted], ['pending', 1]);
    // The same intent relayed by Bo (any admin may relay one): it counts once, for the owner.
    const relayed = await cli(
      'proposal',
      'approve',
      id,
      ...asBo,
      '--wallet',
      fixture.ownerWallet.address,
      '--signature',
      signature,
      '--json',
    );
    assert.equal(relayed.code, 1);
    assert.equal(relayed.json().error.code, 'INTENT_ALREADY_GIVEN');
    const notProposer = await cli('proposal', 'withdraw', id, ...asBo, '--json');
    assert.equal(notProposer.json().error.code, 'PROPOSER_ONLY');
    const withdrawn = await cli('proposal', 'withdraw', id, ...asOwner);
    assert.equal(withdrawn.code, 0, withdrawn.stderr);
    assert.match(
      withdrawn.stdout,
      new RegExp(`^Withdrew proposal ${id} \\(.*\\): 1/2 approvals counted; withdrawn: withdrawn by its proposer$`, 'm'),
    );
    assert.equal(await content('a.txt'), 'a-2-new', 'a withdrawn proposal never runs');
  });

  test('a profile signed in by another wallet holds no key for typed data: told how to approve instead (exit 2)', async () => {
    const id = await heldRestore(await drift('3'));
    const save = await cli('profile', 'save', '--name', 'ledger', '--url', svc.baseUrl);
    assert.equal(save.code, 0, save.stderr);
    const message = await cli('profile', 'sign-in', '--name', 'ledger', '--print-message', '--address', fixture.ownerWallet.address);
    const messageFile = path.join(dir, 'message.txt');
    await writeFile(messageFile, message.stdout);
    const signature = await fixture.ownerWallet.account.signMessage({ message: message.stdout });
    const signedIn = await cli('profile', 'sign-in', '--name', 'ledger', '--message-file', messageFile, '--signature', signature);
    assert.equal(signedIn.code, 0, signedIn.stderr);
    const refused = await cli('proposal', 'approve', id, '--profile', 'ledger');
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /No key here signs typed data: .* --print-typed-data, sign it with that wallet \(eth_signTypedData_v4\), then give --signature 0x…/,
    );
    assert.equal((await ok('proposal', 'show', id, '--profile', 'ledger')).approvals.length, 0);
    assert.equal((await ok('proposal', 'withdraw', id, ...asOwner)).status, 'withdrawn');
  });

  test('a backup delete or lock change over HTTP that a policy holds exits 3 with the proposal, as a restore does; nothing is done yet', async () => {
    const onChannel = [...asOwner, '--channel', fixture.channel.id];
    // The newest of the backups the tests above made.
    const backup: string = (await ok('backup', 'list', ...onChannel)).items[0].timestamp;
    await ok('policy', 'set', ...onChannel, '--rule', 'backup.delete=2:files:read', '--rule', 'backup.lock=2:files:read');

    const deleted = await cli('backup', 'delete', ...onChannel, '--backup', backup);
    assert.equal(deleted.code, 3, `${deleted.stdout}${deleted.stderr}`);
    assert.match(
      deleted.stdout,
      /^Held for approval: proposal prp_\w+ \(.+\) needs intents from 2 admins holding files:read; nothing was done yet\.\n$/,
    );
    const locked = await cli('backup', 'lock', ...onChannel, '--backup', backup, '--legal-hold', '--json');
    assert.equal(locked.code, 3, `${locked.stdout}${locked.stderr}`);
    assert.deepEqual([locked.json().held.operation, locked.json().held.status], ['backup.lock', 'pending']);

    const listed = (await ok('backup', 'list', ...onChannel)).items.find((b: { timestamp: string }) => b.timestamp === backup);
    assert.equal(listed?.lock, null, 'still there, and not locked');
  });
});
