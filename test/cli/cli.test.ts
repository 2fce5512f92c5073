import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ENGINES } from '../helpers/backends.ts';
import { runCli } from '../helpers/cli.ts';
import { request } from '../helpers/http.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { newWallet, signIn } from '../helpers/wallets.ts';

for (const engine of ENGINES) {
  describe(`CLI (${engine})`, () => {
    let storage: Storage;
    let env: Record<string, string | undefined>;
    const cli = (...args: string[]) => runCli([...args, '--json'], env);

    before(async () => {
      storage = await createStorage(engine);
      env = { DATA_DIR: storage.dataDir, DATABASE_URL: storage.databaseUrl, OPERATOR_LABEL: 'ops alice' };
    });
    after(() => storage.drop());

    test('builds a tenant on an empty store, every command printing one JSON object', async () => {
      const tenant = await cli('tenant', 'create', '--name', 'Acme');
      assert.equal(tenant.code, 0, tenant.stderr);
      assert.match(tenant.json().id, /^t_/);
      const tenantId = tenant.json().id;

      const feature = await cli('tenant', 'feature', 'add', '--tenant', tenantId, '--feature', 'reports');
      assert.deepEqual(feature.json().features, ['reports']);

      const ownerWallet = newWallet();
      const owner = await cli('admin', 'create', '--tenant', tenantId, '--wallet', ownerWallet.address.toLowerCase(), '--name', 'Owner');
      assert.equal(owner.code, 0, owner.stderr);
      assert.match(owner.json().id, /^adm_/);
      assert.equal(owner.json().ownerAdminId, null);

      const member = await cli(
        'admin',
        'create',
        '--tenant',
        tenantId,
        '--wallet',
        newWallet().address,
        '--name',
        'Member',
        '--owner',
        owner.json().id,
        '--permission',
        'files:read',
        '--permission',
        'files:write',
        '--feature',
        'beta',
      );
      assert.equal(member.code, 0, member.stderr);
      assert.deepEqual(member.json().permissions, ['files:read', 'files:write']);
      assert.deepEqual(member.json().features, ['beta']);
      const memberId = member.json().id;

      assert.deepEqual((await cli('admin', 'grant', '--admin', memberId, '--permission', 'audit:read')).json().permissions, [
        'audit:read',
        'files:read',
        'files:write',
      ]);
      assert.deepEqual((await cli('admin', 'revoke', '--admin', memberId, '--permission', 'files:write')).json().permissions, [
        'audit:read',
        'files:read',
      ]);
      assert.equal((await cli('admin', 'set-status', '--admin', memberId, '--status', 'SUSPENDED')).json().status, 'SUSPENDED');
      const moved = newWallet();
      assert.equal(
        (await cli('admin', 'set-wallet', '--admin', memberId, '--wallet', moved.address)).json().wallet,
        moved.address.toLowerCase(),
      );

      const channel = await cli('channel', 'create', '--tenant', tenantId, '--name', 'news');
      assert.match(channel.json().id, /^chn_/);
      const link = await cli('channel', 'link', '--channel', channel.json().id, '--admin', memberId);
      assert.deepEqual(link.json(), { channelId: channel.json().id, adminId: memberId, linked: true });
      assert.equal((await cli('channel', 'unlink', '--channel', channel.json().id, '--admin', memberId)).json().linked, false);

      const list = await cli('admin', 'list', '--tenant', tenantId);
      assert.deepEqual(
        list.json().items.map((a: { id: string }) => a.id),
        [owner.json().id, memberId],
      );

      const human = await runCli(['admin', 'list', '--tenant', tenantId], env);
      assert.match(human.stdout, /Owner/);

      // Every change above, and these, is in the tenant's chain: the operator as actor, by its label (docs/audit-chain.md).
      assert.equal((await cli('admin', 'logout', '--admin', memberId)).code, 0);
      assert.equal((await cli('channel', 'rename', '--channel', channel.json().id, '--name', 'headlines')).code, 0);
      assert.equal((await cli('channel', 'archive', '--channel', channel.json().id)).code, 0);
      assert.equal((await cli('channel', 'unarchive', '--channel', channel.json().id)).code, 0);
      // Linking what is linked already changes nothing, and records nothing.
      assert.equal((await cli('channel', 'unlink', '--channel', channel.json().id, '--admin', memberId)).code, 0);
      const exported = await runCli(['audit', 'export', '--tenant', tenantId], env);
      assert.equal(exported.code, 0, exported.stderr);
      const entries = exported.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line));
      assert.deepEqual(
        entries.map((e) => [e.action, e.targetAdminId === memberId ? 'member' : e.targetAdminId === owner.json().id ? 'owner' : null]),
        [
          ['tenant.update', null],
          ['admin.create', 'owner'],
          ['admin.create', 'member'],
          ['admin.update', 'member'],
          ['admin.update', 'member'],
          ['admin.update', 'member'],
          ['admin.update', 'member'],
          ['channel.create', null],
          ['channel.link', 'member'],
          ['channel.unlink', 'member'],
          ['admin.sign-out', 'member'],
          ['channel.update', null],
          ['channel.update', null],
          ['channel.update', null],
        ],
      );
      for (const entry of entries) {
        assert.equal(entry.adminId, null, entry.action);
        assert.equal(entry.operator, 'ops alice', entry.action);
        assert.equal(entry.result, 'ok', entry.action);
      }
      assert.deepEqual(entries[3].change.before.permissions, ['files:read', 'files:write']);
      assert.deepEqual(entries[3].change.after.permissions, ['audit:read', 'files:read', 'files:write']);
      assert.deepEqual(entries[11].change.after.name, 'headlines');
      const exportFile = path.join(storage.dataDir, 'tenant-export.jsonl');
      await writeFile(exportFile, exported.stdout);
      const verified = await cli('audit', 'verify', exportFile);
      assert.equal(verified.code, 0, verified.stderr);
      assert.equal(verified.json().entries, entries.length);

      // The tenant's creation concerns no tenant yet: the service-wide chain has it, headed and verified the same way.
      const service = await runCli(['audit', 'export', '--service'], env);
      const created = service.stdout
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line))
        .find((e) => e.change.after.id === tenantId);
      assert.equal(created.action, 'tenant.create');
      assert.equal(created.tenantId, 'service');
      assert.equal(created.operator, 'ops alice');
      const serviceFile = path.join(storage.dataDir, 'service-export.jsonl');
      await writeFile(serviceFile, service.stdout);
      const head = await cli('audit', 'head', '--service');
      assert.equal(head.code, 0, head.stderr);
      const headFile = path.join(storage.dataDir, 'service-head.json');
      await writeFile(headFile, JSON.stringify(head.json()));
      const reached = await runCli(['audit', 'verify', serviceFile, '--head-file', headFile], env);
      assert.equal(reached.code, 0, reached.stderr);
      assert.match(reached.stdout, /entries of the service-wide chain: the chain is whole/);
      assert.match(reached.stdout, /reaches the published head/);
      const which = await cli('audit', 'head');
      assert.equal(which.code, 2);
      assert.match(which.stderr, /--tenant ID or --service/);
    });

    test('OPERATOR_LABEL is a plain short name, or the CLI stops naming it', async () => {
      const result = await runCli(['tenant', 'list'], { ...env, OPERATOR_LABEL: 'root@host\u202e' });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /OPERATOR_LABEL must be 1 to 64 letters/);
    });

    test('bad input exits non-zero with a clear message (and a JSON error with --json)', async () => {
      const cases: [string[], RegExp][] = [
        [['tenant', 'create'], /--name/],
        [['admin', 'create', '--tenant', 't_missing', '--wallet', newWallet().address, '--name', 'X'], /t_missing/],
        [['admin', 'create', '--tenant', 't_x', '--wallet', 'not-a-wallet', '--name', 'X'], /wallet|address/i],
        [['admin', 'set-status', '--admin', 'adm_x', '--status', 'GONE'], /ACTIVE or SUSPENDED/],
        [['channel', 'link', '--channel', 'chn_missing', '--admin', 'adm_missing'], /not exist|not found/i],
        [['frobnicate'], /Unknown command/],
        [['tenant', 'create', '--name', 'x', '--bogus'], /bogus/],
      ];
      for (const [args, message] of cases) {
        const result = await cli(...args);
        assert.notEqual(result.code, 0, args.join(' '));
        assert.match(result.stderr, message, args.join(' '));
        assert.equal(typeof result.json().error.message, 'string', args.join(' '));
      }
    });

    test('a bad setting stops the command and names the setting, one problem a line', async () => {
      const result = await runCli(['tenant', 'create', '--name', 'x'], { ...env, AUTH_CLOCK_SKEW: 'soon', PORT: '80\n81' });
      assert.equal(result.code, 1);
      // Real line breaks between the problems; the one in the value typed is shown, not acted on.
      assert.equal(
        result.stderr,
        'wallet-admin: Invalid configuration:\n' +
          '  - PORT must be a whole number from 0 to 65535 (got "80\\n81")\n' +
          '  - AUTH_CLOCK_SKEW must be a whole number from 0 to 3600 (got "soon")\n',
      );
    });

    test('changes made with the CLI reach a running server within 5 seconds', async () => {
      const svc: TestService = await startTestService(engine, { storage });
      try {
        const domain = new URL(svc.baseUrl).host;
        const tenantId = (await cli('tenant', 'create', '--name', 'Live')).json().id;
        const ownerId = (await cli('admin', 'create', '--tenant', tenantId, '--wallet', newWallet().address, '--name', 'O')).json().id;
        const wallet = newWallet();
        const adminId = (
          await cli('admin', 'create', '--tenant', tenantId, '--wallet', wallet.address, '--name', 'M', '--owner', ownerId)
        ).json().id;
        const channelId = (await cli('channel', 'create', '--tenant', tenantId, '--name', 'c')).json().id;
        let headers = await signIn(wallet, domain);
        const principal = async () => {
          const response = await request(svc.baseUrl, '/api/auth/test', { headers: { ...headers } });
          return { status: response.status, body: response.json() };
        };
        assert.deepEqual((await principal()).body.principal.channelIds, []);

        const changes: [string[], (p: { status: number; body: any }) => boolean][] = [
          [['channel', 'link', '--channel', channelId, '--admin', adminId], (p) => p.body.principal?.channelIds.includes(channelId)],
          [
            ['admin', 'grant', '--admin', adminId, '--permission', 'files:read'],
            (p) => p.body.principal?.effectivePermissions.includes('files:read'),
          ],
          [['admin', 'logout', '--admin', adminId], (p) => p.status === 401 && p.body.code === 'AUTH_MESSAGE_REVOKED'],
          [['admin', 'set-status', '--admin', adminId, '--status', 'SUSPENDED'], (p) => p.status === 403],
        ];
        for (const [args, reached] of changes) {
          // Logged out everywhere, the admin signs anew: the later changes are seen through a fresh message.
          if (args[1] === 'set-status') headers = await signIn(wallet, domain, { nonce: 'afterlogout12345' });
          assert.equal((await cli(...args)).code, 0);
          const started = Date.now();
          let seen = false;
          while (!seen && Date.now() - started < 5000) {
            seen = reached(await principal());
            if (!seen) await new Promise((resolve) => setTimeout(resolve, 100));
          }
          console.log(`# ${engine}: "${args.slice(0, 2).join(' ')}" reached the server after ${Date.now() - started} ms`);
          assert.ok(seen, `${args.join(' ')} reached the server within 5 s`);
        }
      } finally {
        await svc.close();
      }
    });
  });
}

describe('CLI against an unreachable database', () => {
  test('reports SERVICE_UNAVAILABLE, as the HTTP API does for an outage', async () => {
    // A port bound once by the system and released: nothing listens there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-cli-outage-'));
    try {
      const result = await runCli(['tenant', 'create', '--name', 'Acme', '--json'], {
        DATA_DIR: dataDir,
        DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/none`,
      });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.json().error.code, 'SERVICE_UNAVAILABLE');
      assert.match(result.stderr, /metadata database is unavailable/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('CLI sign', () => {
  test('prints the four headers of a fresh SIWE message that the service accepts', async (t) => {
    const svc = await startTestService('sqlite');
    t.after(() => svc.close());
    const wallet = newWallet();
    const tenant = await svc.service.store.createTenant({ name: 'Signers' });
    await svc.service.store.createAdmin({ tenantId: tenant.id, wallet: wallet.address, displayName: 'Signer' });
    const env = { PUBLIC_BASE_URL: svc.baseUrl, DATA_DIR: svc.config.dataDir };

    const signed = await runCli(['sign', '--private-key', wallet.privateKey, '--json'], env);
    assert.equal(signed.code, 0, signed.stderr);
    const headers = signed.json();
    assert.deepEqual(Object.keys(headers).sort(), ['X-MES', 'X-SIG', 'X-WAL', 'X-Wallet-Address']);
    assert.equal(headers['X-WAL'], wallet.address);
    assert.match(headers['X-MES'], /^base64:/);
    assert.equal((await request(svc.baseUrl, '/api/auth/test', { headers })).status, 200);

    const plain = await runCli(['sign', '--private-key', wallet.privateKey.slice(2), '--plain'], env);
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^X-WAL: 0x/m);
    assert.match(plain.stdout, /^X-MES: Sign in to /m);

    const bad = await runCli(['sign', '--private-key', 'nothex', '--json'], env);
    assert.equal(bad.code, 2, 'a malformed option');
    assert.match(bad.stderr, /--private-key must be 64 hexadecimal digits/);
  });
});
