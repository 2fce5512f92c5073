import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createClient, fromViemAccount, ProblemError } from '../../src/client/index.ts';
import { runCli } from '../helpers/cli.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { scryptKeystore } from '../helpers/keystores.ts';
import { noteSecret } from '../helpers/log-secrets.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signTypedData, type TestWallet } from '../helpers/wallets.ts';

const PASSWORD = 'remote password';

/*
 * The CLI over HTTP, as a tenant owner runs it from a machine of its own: the CLI's environment
 * names no DATA_DIR and no DATABASE_URL, only the service's URL (or a saved profile) and a keystore.
 * What it did is checked through the service's own store and through the changed admin's sign-in.
 */
describe('wallet-admin over HTTP (remote mode)', () => {
  let svc: TestService;
  let fixture: TenantFixture;
  let dir: string;
  let env: Record<string, string>;
  let passwordFile: string;
  const profiles = () => path.join(dir, 'config', 'wallet-admin', 'profiles.json');
  const keystoreOf = async (name: string, wallet: TestWallet) => {
    const file = path.join(dir, `${name}.json`);
    await writeFile(file, await scryptKeystore(wallet, PASSWORD));
    return file;
  };
  const cli = (...args: string[]) => runCli(args, env);
  const ok = async (...args: string[]) => {
    const result = await cli(...args, '--json');
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.json();
  };

  before(async () => {
    noteSecret(PASSWORD);
    svc = await startTestService('sqlite', { transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'Remote');
    dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-remote-'));
    passwordFile = path.join(dir, 'password.txt');
    await writeFile(passwordFile, `${PASSWORD}\n`);
    // No DATA_DIR, no DATABASE_URL: whatever the CLI does, it does through the API.
    env = { XDG_CONFIG_HOME: path.join(dir, 'config') };
    const ownerKeystore = await keystoreOf('owner', fixture.ownerWallet);
    const saved = await cli(
      'profile',
      'save',
      '--name',
      'owner',
      '--url',
      svc.baseUrl,
      '--keystore',
      ownerKeystore,
      '--password-file',
      passwordFile,
    );
    assert.equal(saved.code, 0, saved.stderr);
  });
  after(async () => {
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('an owner invites, creates a sub-admin, narrows, suspends, reactivates and removes it, all over HTTP', async () => {
    const invitee = newWallet();
    const invitation = await ok(
      'admin',
      'invite',
      '--profile',
      'owner',
      '--permission',
      'files:read',
      '--channel',
      'main',
      '--name',
      'Guest',
    );
    assert.match(invitation.url, /\/console\/invite#token=/);
    const accepted = await ok(
      'admin',
      'accept-invitation',
      '--url',
      svc.baseUrl,
      '--keystore',
      await keystoreOf('invitee', invitee),
      '--password-file',
      passwordFile,
      '--token',
      invitation.url,
    );
    assert.deepEqual(
      [accepted.ownerAdminId, accepted.wallets, accepted.channelIds],
      [fixture.owner.id, [invitee.address], [fixture.channel.id]],
    );
    assert.ok(accepted.effectivePermissions.includes('files:read'));
    // The service's rules reach the CLI with their codes: the guest holds files:read only.
    const denied = await cli(
      'admin',
      'invite',
      '--url',
      svc.baseUrl,
      '--keystore',
      path.join(dir, 'invitee.json'),
      '--password-file',
      passwordFile,
      '--json',
    );
    assert.equal(denied.code, 1);
    assert.equal(denied.json().error.code, 'PERMISSION_DENIED');
    const reused = await cli(
      'admin',
      'accept-invitation',
      '--url',
      svc.baseUrl,
      '--keystore',
      await keystoreOf('other', newWallet()),
      '--password-file',
      passwordFile,
      '--token',
      invitation.token,
      '--json',
    );
    assert.equal(reused.code, 1);
    assert.equal(reused.json().error.code, 'INVITATION_USED');

    const subWallet = newWallet();
    const sub = await ok(
      'admin',
      'create',
      '--profile',
      'owner',
      '--wallet',
      subWallet.address,
      '--name',
      'Sub',
      '--permission',
      'files:read',
      '--permission',
      'files:write',
      '--channel',
      'main',
    );
    assert.equal(sub.ownerAdminId, fixture.owner.id);
    assert.deepEqual([...sub.effectivePermissions].sort(), ['files:read', 'files:write']);

    const narrowed = await ok('admin', 'revoke', '--profile', 'owner', '--admin', sub.id, '--permission', 'files:write');
    assert.deepEqual(narrowed.effectivePermissions, ['files:read']);
    assert.deepEqual((await svc.service.store.getAdmin(sub.id))?.permissions, ['files:read']);

    const subClient = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(subWallet.account) });
    assert.equal((await subClient.authTest()).principal.id, sub.id);
    assert.equal((await ok('admin', 'set-status', '--profile', 'owner', '--admin', sub.id, '--status', 'suspended')).status, 'SUSPENDED');
    await assert.rejects(subClient.authTest(), (error: unknown) => error instanceof ProblemError && error.code === 'ADMIN_SUSPENDED');
    assert.equal((await ok('admin', 'set-status', '--profile', 'owner', '--admin', sub.id, '--status', 'ACTIVE')).status, 'ACTIVE');
    // Suspending ended the sub-admin's messages: a new one signs in.
    assert.equal(
      (await createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(subWallet.account) }).authTest()).principal.id,
      sub.id,
    );

    assert.deepEqual(await ok('admin', 'remove', '--profile', 'owner', '--admin', sub.id), { adminId: sub.id, removed: true });
    const removed = await ok('admin', 'list', '--profile', 'owner', '--status', 'REMOVED');
    assert.deepEqual(
      removed.items.map((a: { id: string; wallets: string[] }) => [a.id, a.wallets]),
      [[sub.id, []]],
    );
    const listed = await cli('admin', 'list', '--profile', 'owner');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${accepted.id}  ${invitee.address}  ACTIVE  "Guest"`, 'm'));
    // A removed admin's record stays, for the audit log: walletless and REMOVED.
    assert.match(listed.stdout, new RegExp(`^${sub.id}  no wallet  REMOVED  "Sub"`, 'm'));
  });

  test('wallets: one added with its keystore, one whose challenge another wallet signed, listed, then removed', async () => {
    const withKeystore = newWallet();
    const added = await ok(
      'admin',
      'wallet',
      'add',
      '--profile',
      'owner',
      '--admin',
      fixture.owner.id,
      '--new-keystore',
      await keystoreOf('second', withKeystore),
      '--new-password-file',
      passwordFile,
    );
    assert.equal(added.address, withKeystore.address);

    const elsewhere = newWallet();
    const challenge = await cli(
      'admin',
      'wallet',
      'challenge',
      '--profile',
      'owner',
      '--admin',
      fixture.owner.id,
      '--wallet',
      elsewhere.address,
    );
    assert.equal(challenge.code, 0, challenge.stderr);
    const typedDataFile = path.join(dir, 'challenge.json');
    await writeFile(typedDataFile, challenge.stdout);
    const signature = await signTypedData(elsewhere, JSON.parse(challenge.stdout));
    const proven = await ok(
      'admin',
      'wallet',
      'add',
      '--profile',
      'owner',
      '--admin',
      fixture.owner.id,
      '--typed-data-file',
      typedDataFile,
      '--signature',
      signature,
    );
    assert.equal(proven.address, elsewhere.address);

    const listed = await ok('admin', 'wallet', 'list', '--profile', 'owner', '--admin', fixture.owner.id);
    assert.deepEqual(
      listed.items.map((w: { address: string }) => w.address).sort(),
      [fixture.ownerWallet.address, withKeystore.address, elsewhere.address].sort(),
    );
    for (const wallet of [withKeystore, elsewhere])
      await ok('admin', 'wallet', 'remove', '--profile', 'owner', '--admin', fixture.owner.id, '--wallet', wallet.address);
    const last = await cli(
      'admin',
      'wallet',
      'remove',
      '--profile',
      'owner',
      '--admin',
      fixture.owner.id,
      '--wallet',
      fixture.ownerWallet.address,
      '--json',
    );
    assert.equal(last.code, 1);
    assert.match(last.json().error.code, /^LAST_(WALLET|OWNER)$/);
  });

  test('the profile file is 0600, keeps the signed message until it expires, and one others may read is refused', async () => {
    await ok('channel', 'list', '--profile', 'owner');
    assert.equal((await stat(profiles())).mode & 0o777, 0o600);
    const saved = JSON.parse(await readFile(profiles(), 'utf8')).owner;
    assert.ok(Date.parse(saved.signedIn.expiresAt) > Date.now(), 'the message of the last command is kept');
    assert.ok(Date.parse(saved.signedIn.expiresAt) <= Date.now() + 3600_000);

    // The kept message signs in without the keystore's password.
    await rm(passwordFile);
    try {
      const channels = await ok('channel', 'list', '--profile', 'owner');
      assert.deepEqual(
        channels.items.map((c: { id: string }) => c.id),
        [fixture.channel.id],
      );
      // An expired message is dropped when the file is read, and the password asked again: here there is none to read.
      const file = JSON.parse(await readFile(profiles(), 'utf8'));
      file.owner.signedIn.expiresAt = new Date(Date.now() - 1000).toISOString();
      await writeFile(profiles(), JSON.stringify(file));
      const refused = await cli('channel', 'list', '--profile', 'owner', '--json');
      assert.equal(refused.code, 2);
      assert.match(refused.json().error.message, /Cannot read --password-file/);
      assert.equal(JSON.parse(await readFile(profiles(), 'utf8')).owner.signedIn, undefined, 'the expired message is gone');
    } finally {
      await writeFile(passwordFile, `${PASSWORD}\n`);
    }

    await chmod(profiles(), 0o644);
    const open = await cli('admin', 'list', '--profile', 'owner');
    assert.equal(open.code, 2);
    assert.match(open.stderr, /may be read by other users \(mode 644\): run chmod 600/);
    await chmod(profiles(), 0o600);
  });

  test('a profile signed in by another wallet (profile sign-in) presents its message, checked before it is kept', async () => {
    const saved = await cli('profile', 'save', '--name', 'external', '--url', svc.baseUrl);
    assert.equal(saved.code, 0, saved.stderr);
    const noWallet = await cli('channel', 'list', '--profile', 'external');
    assert.equal(noWallet.code, 2);
    assert.match(noWallet.stderr, /names no keystore and holds no signed message/);

    const printed = await cli('profile', 'sign-in', '--name', 'external', '--print-message', '--address', fixture.ownerWallet.address);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, new RegExp(`^${new URL(svc.baseUrl).host} wants you to sign in`));
    const messageFile = path.join(dir, 'message.txt');
    await writeFile(messageFile, printed.stdout);
    // Another wallet's signature of it is refused, and nothing is kept.
    const forged = await newWallet().account.signMessage({ message: printed.stdout });
    const refused = await cli('profile', 'sign-in', '--name', 'external', '--message-file', messageFile, '--signature', forged);
    assert.equal(refused.code, 1);
    assert.equal(JSON.parse(await readFile(profiles(), 'utf8')).external.signedIn, undefined);

    const signature = await fixture.ownerWallet.account.signMessage({ message: printed.stdout });
    const kept = await cli('profile', 'sign-in', '--name', 'external', '--message-file', messageFile, '--signature', signature);
    assert.equal(kept.code, 0, kept.stderr);
    const channels = await ok('channel', 'list', '--profile', 'external');
    assert.deepEqual(
      channels.items.map((c: { id: string }) => c.id),
      [fixture.channel.id],
    );
  });

  test('the same command in both modes: channel archive locally (the operator), unarchive over HTTP (the owner); channel list marks it in both', async () => {
    const locally = (...args: string[]) => runCli(args, { DATA_DIR: svc.config.dataDir });
    const id = fixture.channel.id;
    /** `channel list` in both modes, text and --json: each line of the channel, and its `archived`. */
    const listed = async () => {
      const [localText, localJson, remoteText, remoteJson] = await Promise.all([
        locally('channel', 'list', '--tenant', fixture.tenant.id),
        locally('channel', 'list', '--tenant', fixture.tenant.id, '--json'),
        cli('channel', 'list', '--profile', 'owner'),
        cli('channel', 'list', '--profile', 'owner', '--json'),
      ]);
      for (const result of [localText, localJson, remoteText, remoteJson]) assert.equal(result.code, 0, result.stderr);
      const archived = (result: typeof localJson) => result.json().items.find((c: { id: string }) => c.id === id).archived;
      return {
        local: localText.stdout.split('\n').find((line) => line.startsWith(id)),
        remote: remoteText.stdout.split('\n').find((line) => line.startsWith(id)),
        archived: [archived(localJson), archived(remoteJson)],
      };
    };
    assert.deepEqual(await listed(), { local: `${id}  ${fixture.tenant.id}  main`, remote: `${id}  main`, archived: [false, false] });

    const local = await locally('channel', 'archive', '--channel', 'main', '--tenant', fixture.tenant.id, '--json');
    assert.equal(local.code, 0, local.stderr);
    assert.equal(local.json().archived, true);
    assert.notEqual((await svc.service.store.getChannel(id))?.archivedAt, null);
    assert.deepEqual(await listed(), {
      local: `${id}  ${fixture.tenant.id}  main  (archived: read-only)`,
      remote: `${id}  main  (archived: read-only)`,
      archived: [true, true],
    });

    const remote = await ok('channel', 'unarchive', '--channel', 'main', '--profile', 'owner');
    assert.deepEqual([remote.id, remote.archived], [id, false]);
    assert.equal((await svc.service.store.getChannel(id))?.archivedAt, null);
    assert.deepEqual((await listed()).archived, [false, false]);
  });

  test('plain http:// to another machine is refused, for --url and for a profile, before anything is sent', async () => {
    const unchanged = await readFile(profiles(), 'utf8');
    const saved = await cli('profile', 'save', '--name', 'far', '--url', 'http://admin.example.com');
    assert.equal(saved.code, 2);
    assert.match(saved.stderr, /plain http:\/\/ would send signed messages readable on the way/);
    assert.equal(await readFile(profiles(), 'utf8'), unchanged, 'nothing saved');
    const direct = await cli('admin', 'list', '--url', 'http://192.0.2.1:8080', '--keystore', path.join(dir, 'owner.json'));
    assert.equal(direct.code, 2);
    assert.match(direct.stderr, /http:\/\/192\.0\.2\.1:8080: plain http:\/\//);
  });

  test('one command, one set of option names: an option of the other mode is refused, and so is the wrong mode', async () => {
    const tenant = await cli('admin', 'list', '--profile', 'owner', '--tenant', fixture.tenant.id);
    assert.equal(tenant.code, 2);
    assert.match(tenant.stderr, /--tenant works locally only/);
    const remoteOnly = await cli('admin', 'remove', '--admin', fixture.owner.id);
    assert.equal(remoteOnly.code, 2);
    assert.match(remoteOnly.stderr, /runs over HTTP only: give --url URL or --profile NAME/);
    const localOnly = await cli('admin', 'logout', '--admin', fixture.owner.id, '--profile', 'owner');
    assert.equal(localOnly.code, 2);
    assert.match(localOnly.stderr, /runs locally only/);
  });

  test('backups over HTTP (create, list, lock, unlock, delete) and a file restored from a backup, a version, an instant', async () => {
    const owner = ['--profile', 'owner', '--channel', 'main'];
    const api = createClient({ baseUrl: svc.baseUrl, signer: fromViemAccount(fixture.ownerWallet.account) });
    const content = async () => (await api.download(fixture.channel.id, 'docs', 'a.txt')).text();
    await api.upload(fixture.channel.id, 'docs', 'a.txt', 'v1', 'text/plain');

    const backup = await ok('backup', 'create', ...owner);
    assert.deepEqual(
      [backup.channel, backup.files, backup.bytes, backup.origin, backup.createdBy],
      ['main', 1, 2, 'api', fixture.owner.id],
    );
    const ts: string = backup.timestamp;
    const listed = await cli('backup', 'list', ...owner);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout, `${ts}       1 files             2 bytes  by ${fixture.owner.id} "${fixture.owner.displayName}" (API)\n`);
    assert.deepEqual(
      (await ok('backup', 'list', ...owner)).items.map((b: { timestamp: string }) => b.timestamp),
      [ts],
    );

    // The instant between v1 and v2; v2 is written a few milliseconds after it.
    const between = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await api.upload(fixture.channel.id, 'docs', 'a.txt', 'v2', 'text/plain');
    const fromBackup = await ok('file', 'restore', ...owner, '--folder', 'docs', '--file', 'a.txt', '--backup', ts);
    assert.match(fromBackup.url, /\/api\/channels\/chn_\w+\/folders\/docs\/files\/a\.txt$/);
    assert.match(fromBackup.keptVersionId, /^ver_/);
    assert.deepEqual(fromBackup.source, { backupTimestamp: ts, versionId: null, at: null });
    assert.equal(await content(), 'v1');
    const undo = await cli('file', 'restore', ...owner, '--folder', 'docs', '--file', 'a.txt', '--version', fromBackup.keptVersionId);
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(
      undo.stdout,
      new RegExp(
        `^Restored docs/a\\.txt from version ${fromBackup.keptVersionId}: ${fromBackup.url}; the replaced bytes are kept as version ver_\\w+\n$`,
      ),
    );
    assert.equal(await content(), 'v2');
    assert.equal((await ok('file', 'restore', ...owner, '--folder', 'docs', '--file', 'a.txt', '--at', between)).source.at, between);
    assert.equal(await content(), 'v1');
    // From the newest backup holding it: its bytes are those already, so nothing was replaced.
    const newest = await cli('file', 'restore', ...owner, '--folder', 'docs', '--file', 'a.txt');
    assert.equal(newest.code, 0, newest.stderr);
    assert.equal(
      newest.stdout,
      `Restored docs/a.txt from the newest backup holding it: ${fromBackup.url}; nothing was replaced (the file was not there, or held these bytes already)\n`,
    );

    const until = new Date(Date.now() + 86_400_000).toISOString();
    const locked = await cli('backup', 'lock', ...owner, '--backup', ts, '--mode', 'governance', '--until', until);
    assert.equal(locked.code, 0, locked.stderr);
    assert.equal(locked.stdout, `Backup ${ts} of main: governance lock until ${until}\n`);
    const held = await ok('backup', 'lock', ...owner, '--backup', ts, '--legal-hold');
    assert.deepEqual([held.channel, held.lock.mode, held.lock.legalHold], ['main', 'governance', true]);
    const refused = await cli('backup', 'delete', ...owner, '--backup', ts, '--json');
    assert.equal(refused.code, 1);
    assert.equal(refused.json().error.code, 'BACKUP_LOCKED');
    assert.equal((await ok('backup', 'lock', ...owner, '--backup', ts, '--release-hold')).lock.legalHold, false);
    const both = await cli('backup', 'lock', ...owner, '--backup', ts, '--unlock', '--legal-hold');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /Over HTTP, --unlock goes alone/);
    const bypass = await cli('backup', 'delete', ...owner, '--backup', ts, '--bypass-governance');
    assert.equal(bypass.code, 2);
    assert.match(bypass.stderr, /--bypass-governance works locally only/);
    assert.equal((await ok('backup', 'lock', ...owner, '--backup', ts, '--unlock')).lock, null);
    assert.deepEqual(await ok('backup', 'delete', ...owner, '--backup', ts), { channel: 'main', timestamp: ts, deleted: true });
    const none = await cli('backup', 'list', ...owner);
    assert.equal(none.stdout, 'No backups of main yet\n');

    // Refused as locally: the service's codes (exit 1), wrong use and names it refuses before anything is sent (exit 2).
    for (const [args, code, exit] of [
      [['backup', 'delete', ...owner, '--backup', ts], 'BACKUP_NOT_FOUND', 1],
      [['backup', 'create', '--profile', 'owner', '--channel', 'elsewhere'], 'CHANNEL_NOT_FOUND', 1],
      [['file', 'restore', ...owner, '--folder', 'docs', '--file', '..', '--backup', ts], 'INVALID_PATH', 2],
      [['folder', 'restore', ...owner, '--folder', '..', '--backup', ts], 'INVALID_PATH', 2],
      [['file', 'restore', ...owner, '--folder', 'docs', '--file', 'a.txt', '--backup', 'yesterday'], 'INVALID_TIMESTAMP', 2],
      [['backup', 'list', ...owner, '--tenant', fixture.tenant.id], 'USAGE', 2],
    ] as const) {
      const result = await cli(...args, '--json');
      assert.equal(result.code, exit, `${args.join(' ')}: ${result.stderr}`);
      assert.equal(result.json().error.code, code, args.join(' '));
    }
    assert.equal(await content(), 'v1', 'nothing refused changed the file');
  });
});
