import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../helpers/cli.ts';
import { request } from '../helpers/http.ts';
import { pbkdf2Keystore, scryptKeystore } from '../helpers/keystores.ts';
import { noteSecret } from '../helpers/log-secrets.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, type TestWallet } from '../helpers/wallets.ts';

const PASSWORD = 'a password with spaces & ümlauts';

describe('CLI sign without a raw key on the command line', () => {
  let svc: TestService;
  let wallet: TestWallet;
  let dir: string;
  let env: Record<string, string>;
  const file = async (name: string, content: string | Uint8Array) => {
    const target = path.join(dir, name);
    await writeFile(target, content);
    return target;
  };
  const status = async (headers: Record<string, string>) => (await request(svc.baseUrl, '/api/auth/test', { headers })).status;

  before(async () => {
    // The keystores' password is a secret of this run: no line of the CLI's or the service's output may hold it.
    noteSecret(PASSWORD);
    svc = await startTestService('sqlite');
    wallet = newWallet();
    const tenant = await svc.service.store.createTenant({ name: 'Signers' });
    await svc.service.store.createAdmin({ tenantId: tenant.id, wallet: wallet.address, displayName: 'Signer' });
    dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-sign-'));
    env = { PUBLIC_BASE_URL: svc.baseUrl, DATA_DIR: svc.config.dataDir, KEY_PASSWORD: PASSWORD };
  });
  after(async () => {
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('--keystore (scrypt, then pbkdf2) with the password from a file or a variable prints headers the service accepts', async () => {
    const passwordFile = await file('password.txt', `${PASSWORD}\n`);
    const keystores = [
      await file('scrypt.json', await scryptKeystore(wallet, PASSWORD)),
      await file('pbkdf2.json', await pbkdf2Keystore(wallet, PASSWORD)),
    ];
    for (const keystore of keystores) {
      for (const source of [
        ['--password-file', passwordFile],
        ['--password-env', 'KEY_PASSWORD'],
      ]) {
        const signed = await runCli(['sign', '--keystore', keystore, ...source, '--json'], env);
        assert.equal(signed.code, 0, signed.stderr);
        const headers = signed.json();
        assert.deepEqual(Object.keys(headers).sort(), ['X-MES', 'X-SIG', 'X-WAL', 'X-Wallet-Address']);
        assert.equal(headers['X-WAL'], wallet.address);
        assert.equal(await status(headers), 200, `${path.basename(keystore)} ${source[0]}`);
      }
    }
  });

  test('a wrong password is refused with KEYSTORE_PASSWORD_WRONG, and the password is nowhere in the output', async () => {
    const keystore = await file('wrong.json', await scryptKeystore(wallet, PASSWORD));
    const result = await runCli(['sign', '--keystore', keystore, '--password-env', 'KEY_PASSWORD', '--json'], {
      ...env,
      KEY_PASSWORD: 'not the password',
    });
    assert.equal(result.code, 1);
    assert.equal(result.json().error.code, 'KEYSTORE_PASSWORD_WRONG');
    assert.match(result.stderr, /Wrong password/);
    assert.ok(!`${result.stdout}${result.stderr}`.includes('not the password'));
  });

  test('with no terminal and no password source it stops with a usage error instead of waiting', async () => {
    const keystore = await file('nopassword.json', await scryptKeystore(wallet, PASSWORD));
    // stdin /dev/null, then a pipe that stays open and silent (a CI job's stdin can be either).
    for (const stdin of [{}, { keepOpen: true }]) {
      const started = Date.now();
      const result = await runCli(['sign', '--keystore', keystore, '--json'], env, stdin);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.json().error.code, 'USAGE');
      assert.match(result.stderr, /--password-file FILE or --password-env NAME/);
      assert.ok(Date.now() - started < 10_000);
    }
  });

  test('--print-message, a signature made elsewhere, then --signature: headers the service accepts', async () => {
    const printed = await runCli(['sign', '--print-message', '--address', wallet.address.toLowerCase(), '--ttl', '600'], env);
    assert.equal(printed.code, 0, printed.stderr);
    const message = printed.stdout;
    // Exactly the bytes to sign: no newline added when stdout is not a terminal.
    assert.match(message, /^127\.0\.0\.1:\d+ wants you to sign in with your Ethereum account:\n0x[0-9a-fA-F]{40}\n/);
    assert.ok(message.endsWith('Z'), JSON.stringify(message.slice(-5)));

    // What a hardware or browser wallet does: personal_sign of exactly these bytes.
    const signature = await wallet.account.signMessage({ message: { raw: new TextEncoder().encode(message) } });
    const messageFile = await file('message.txt', message);
    const fromFile = await runCli(['sign', '--message-file', messageFile, '--signature', signature, '--json'], env);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.deepEqual(fromFile.json(), {
      'X-WAL': wallet.address,
      'X-SIG': signature,
      'X-MES': `base64:${Buffer.from(message).toString('base64')}`,
      'X-Wallet-Address': wallet.address,
    });
    assert.equal(await status(fromFile.json()), 200);

    const fromStdin = await runCli(['sign', '--signature', signature], env, { input: message });
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    const headers = Object.fromEntries(
      fromStdin.stdout
        .trim()
        .split('\n')
        .map((line) => line.split(': ') as [string, string]),
    );
    assert.deepEqual(headers, fromFile.json());
  });

  test('a signature by another key, or of other bytes, is refused before any request', async () => {
    const message = (await runCli(['sign', '--print-message', '--address', wallet.address], env)).stdout;
    const other = newWallet();
    const foreign = await other.account.signMessage({ message: { raw: new TextEncoder().encode(message) } });
    const refused = await runCli(['sign', '--signature', foreign, '--json'], env, { input: message });
    assert.equal(refused.code, 1);
    assert.equal(refused.json().error.code, 'AUTH_SIGNATURE_INVALID');
    assert.match(refused.stderr, new RegExp(`made by ${other.address}`));

    // An editor's trailing newline changes the signed bytes: the signature no longer fits.
    const signature = await wallet.account.signMessage({ message: { raw: new TextEncoder().encode(message) } });
    const altered = await runCli(['sign', '--signature', signature, '--json'], env, { input: `${message}\n` });
    assert.equal(altered.code, 1);
    assert.match(altered.json().error.code, /^AUTH_(SIGNATURE_INVALID|MESSAGE_MALFORMED)$/);

    const empty = await runCli(['sign', '--signature', signature, '--json'], env);
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /stdin is empty/);
  });

  test('one way to sign per run, each option with its own way, and --help names them all', async () => {
    const cases: [string[], RegExp][] = [
      [[], /Say how to sign/],
      [['--keystore', 'k.json', '--private-key', wallet.privateKey], /only one of --keystore, --private-key/],
      [['--print-message'], /--address/],
      [['--private-key', wallet.privateKey, '--password-env', 'KEY_PASSWORD'], /--password-env goes with --keystore/],
      [['--signature', '0x00', '--ttl', '60'], /--ttl goes with/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['sign', ...args, '--json'], env);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, message, args.join(' '));
    }
    const help = await runCli(['sign', '--help'], env);
    assert.equal(help.code, 0);
    for (const option of [
      'keystore FILE',
      'password-file FILE',
      'password-env NAME',
      'print-message',
      'address 0x…',
      'signature 0x…',
      'message-file FILE',
      'private-key KEY',
      'domain',
      'uri',
      'chain-id',
      'ttl',
      'nonce',
      'plain',
    ]) {
      assert.match(help.stdout, new RegExp(`--${option}`), option);
    }
  });
});
