import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../../src/config/config.ts';
import { isLoopbackHost } from '../../src/config/loopback.ts';
import { DEMO_PRIVATE_KEY, DEMO_STEPS, DEMO_WALLET, type DemoData, demoRefusal, seedDemo } from '../../src/demo/demo-seed.ts';
import { signCommandLine } from '../../src/demo/sign-command-line.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { ENGINES } from '../helpers/backends.ts';
import { type DemoState, demoState } from '../helpers/demo-state.ts';
import { sha256 } from '../helpers/files.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';
import { type AuthHeaders, signIn, type TestWallet } from '../helpers/wallets.ts';

interface Version {
  id: string;
  kind: string;
  timestamp: string | null;
  sha256: string;
}

for (const engine of ENGINES) {
  describe(`the demo seed (${engine})`, () => {
    let svc: TestService;
    let demo: DemoData;
    let auth: AuthHeaders;
    const get = (path: string): Promise<HttpResponse> => request(svc.baseUrl, `/api/channels/demo${path}`, { headers: auth });

    before(async () => {
      svc = await startTestService(engine);
      const seeded = await seedDemo(svc.service.store, svc.service.files);
      assert.ok(seeded, 'an empty store gets the demo');
      demo = seeded;
      const account = privateKeyToAccount(DEMO_PRIVATE_KEY);
      auth = await signIn({ privateKey: DEMO_PRIVATE_KEY, account, address: account.address }, svc.config.auth.domains[0]!);
    });
    after(() => svc.close());

    test('the demo channel holds the example files, one backup, and a prices.csv changed since it', async () => {
      const folders = await get('/folders');
      assert.equal(folders.status, 200, folders.body);
      assert.deepEqual(
        folders.json().items.map((f: { name: string; fileCount: number }) => [f.name, f.fileCount]),
        [
          ['reports', 1],
          ['welcome', 2],
        ],
      );
      const welcome = await get('/folders/welcome/files');
      assert.deepEqual(
        welcome
          .json()
          .items.map((f: { filename: string }) => f.filename)
          .sort(),
        ['README.txt', 'prices.csv'],
      );
      const reports = await get('/folders/reports/files');
      assert.deepEqual(
        reports.json().items.map((f: { filename: string }) => f.filename),
        ['q3-summary.md'],
      );
      const readme = await get('/folders/welcome/files/README.txt');
      assert.match(readme.body, /examples/);

      const backups = await get('/backups');
      assert.equal(backups.json().items.length, 1, backups.body);
      assert.equal(backups.json().items[0].files, 3);
      // The demo seed made it, as the demo owner: it says so, and does not pass for the owner's request.
      assert.deepEqual([backups.json().items[0].origin, backups.json().items[0].createdBy], ['demo', demo.adminId]);

      const versions = await get('/folders/welcome/files/prices.csv/versions');
      const items = versions.json().items as Version[];
      assert.deepEqual(items.map((v) => v.kind).sort(), ['backup', 'replaced']);
      const backup = items.find((v) => v.kind === 'backup')!;
      assert.equal(backup.timestamp, backups.json().items[0].timestamp);
      const live = await get('/folders/welcome/files/prices.csv');
      assert.notEqual(sha256(live.body), backup.sha256, 'the live prices.csv differs from its backup');
      assert.equal(items.find((v) => v.kind === 'replaced')!.sha256, backup.sha256, 'the upload replaced the backed-up bytes');
    });

    test('restoring the backed-up prices.csv brings back other bytes, and the audit log names the demo owner', async () => {
      const changed = (await get('/folders/welcome/files/prices.csv')).body;
      const restored = await request(svc.baseUrl, '/api/channels/demo/folders/welcome/files/prices.csv/restore', {
        method: 'POST',
        headers: auth,
      });
      assert.equal(restored.status, 200, restored.body);
      const backedUp = (await get('/folders/welcome/files/prices.csv')).body;
      assert.notEqual(backedUp, changed);
      assert.match(backedUp, /^item,unit,price_eur\n/);

      const audit = await get('/audit?action=upload');
      const uploads = audit.json().items as { adminId: string; folder: string; filename: string; result: string }[];
      assert.equal(uploads.length, 4, audit.body);
      for (const event of uploads) assert.deepEqual([event.adminId, event.result], [demo.adminId, 'ok']);
      const backups = (await get('/audit?action=backup')).json().items as { adminId: string }[];
      assert.deepEqual(
        backups.map((e) => e.adminId),
        [demo.adminId],
      );
    });

    test('a later start finds the tenant and seeds nothing more', async () => {
      assert.equal(await seedDemo(svc.service.store, svc.service.files), undefined);
      assert.equal((await get('/backups')).json().items.length, 1);
      assert.equal((await get('/audit?action=upload')).json().items.length, 4);
    });
  });
}

class Stopped extends Error {}

for (const engine of ENGINES) {
  describe(`a demo seeding stopped midway is completed by the next start (${engine})`, () => {
    let expected: DemoState;

    before(async () => {
      const svc = await startTestService(engine);
      try {
        assert.ok(await seedDemo(svc.service.store, svc.service.files));
        expected = await demoState(svc);
        assert.equal(expected.files.length, 3);
        assert.deepEqual(expected.priceVersions, ['backup', 'replaced']);
        assert.equal(expected.backups, 1);
      } finally {
        await svc.close();
      }
    });

    for (const [index, step] of DEMO_STEPS.entries()) {
      test(`stopped after step ${index + 1}, ${step}`, async (t) => {
        const storage = await createStorage(engine);
        t.after(() => storage.drop());
        const first = await startTestService(engine, { storage });
        try {
          const stop = (done: string) => {
            if (done === step) throw new Stopped(done);
          };
          await assert.rejects(seedDemo(first.service.store, first.service.files, stop), Stopped);
          assert.equal(await first.service.store.demoSeeding(), 'begun');
        } finally {
          await first.close();
        }

        const next = await startTestService(engine, { storage });
        t.after(() => next.close());
        const completed = await seedDemo(next.service.store, next.service.files);
        assert.equal(completed?.completedEarlierStart, true);
        assert.equal(await next.service.store.demoSeeding(), 'complete');
        assert.equal((await next.service.store.findAdminByWallet(DEMO_WALLET))?.id, completed.adminId);
        assert.deepEqual(await demoState(next), expected, 'the demo as an uninterrupted first start makes it');
        assert.equal(await seedDemo(next.service.store, next.service.files), undefined, 'and then it is complete');
      });
    }

    test('a store with tenants from before (no seeding recorded) gets no demo, nor one whose seeding was complete', async (t) => {
      const svc = await startTestService(engine);
      t.after(() => svc.close());
      await createTenantFixture(svc.service.store, 'Real');
      assert.equal(await seedDemo(svc.service.store, svc.service.files), undefined);
      assert.equal(await svc.service.store.demoSeeding(), 'none');
      assert.equal(await svc.service.store.findAdminByWallet(DEMO_WALLET), undefined);
    });
  });
}

describe("the welcome's wallet-admin sign line", () => {
  test('signs, run as printed with nothing else in its environment, for the domain and URI the service takes', () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'npm exec --no -- wallet-admin sign --private-key <key>'],
      [{ PORT: '8081' }, 'PORT=8081 npm exec --no -- wallet-admin sign --private-key <key>'],
      [{ HOST: 'localhost', PORT: '9000' }, 'HOST=localhost PORT=9000 npm exec --no -- wallet-admin sign --private-key <key>'],
      [{ HOST: '::1' }, 'HOST=::1 npm exec --no -- wallet-admin sign --private-key <key>'],
      [
        { PUBLIC_BASE_URL: 'http://localhost:3000' },
        'npm exec --no -- wallet-admin sign --private-key <key> --domain localhost:3000 --uri http://localhost:3000',
      ],
      [
        { PORT: '8082', AUTH_DOMAINS: 'localhost:8082' },
        'PORT=8082 npm exec --no -- wallet-admin sign --private-key <key> --domain localhost:8082 --uri http://127.0.0.1:8082',
      ],
    ];
    for (const [env, expected] of cases) {
      const service = loadConfig(env);
      const line = signCommandLine(service);
      assert.equal(line, expected, JSON.stringify(env));
      // What the CLI would sign for: the settings that lead the line, then its --domain and --uri.
      const cli = loadConfig(Object.fromEntries([...line.matchAll(/(?:^| )([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])));
      const domain = /--domain (\S+)/.exec(line)?.[1] ?? cli.auth.domains[0];
      const uri = /--uri (\S+)/.exec(line)?.[1] ?? cli.publicBaseUrl;
      assert.deepEqual([domain, uri], [service.auth.domains[0], service.publicBaseUrl], line);
    }
  });
});

describe('where the demo data may be created', () => {
  test('loopback is 127.0.0.0/8, ::1 in any spelling (and IPv4-mapped) and localhost; nothing else', () => {
    for (const host of [
      '127.0.0.1',
      '127.1.2.3',
      '127.255.255.254',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      'localhost',
      'LocalHost',
      'localhost.',
    ])
      assert.ok(isLoopbackHost(host), host);
    for (const host of [
      '0.0.0.0',
      '::',
      '[::]',
      '10.0.0.1',
      '192.168.1.10',
      '128.0.0.1',
      '::2',
      '::ffff:10.0.0.1',
      'admin.example.com',
      'localhost.example.com',
      '127.0.0.1.nip.io',
      'my-localhost',
      '',
    ])
      assert.ok(!isLoopbackHost(host), host);
  });

  test('only outside production, on a loopback HOST and a loopback PUBLIC_BASE_URL', () => {
    const refusal = (env: Record<string, string>) => demoRefusal(loadConfig(env));
    const allowed: Record<string, string>[] = [
      {},
      { HOST: 'localhost' },
      { HOST: '::1' },
      { HOST: '127.0.0.2', PUBLIC_BASE_URL: 'http://localhost:3000' },
      { PUBLIC_BASE_URL: 'http://[::1]:8080' },
    ];
    for (const env of allowed) assert.equal(refusal(env), undefined, JSON.stringify(env));
    assert.equal(refusal({ NODE_ENV: 'production' }), 'NODE_ENV=production');
    assert.match(refusal({ HOST: '0.0.0.0' }) ?? '', /HOST 0\.0\.0\.0 is not a loopback address/);
    assert.match(refusal({ HOST: '::' }) ?? '', /HOST :: is not a loopback address/);
    assert.match(refusal({ HOST: '192.168.1.10', PUBLIC_BASE_URL: 'http://127.0.0.1:8080' }) ?? '', /HOST 192\.168\.1\.10/);
    assert.match(
      refusal({ PUBLIC_BASE_URL: 'https://admin.example.com' }) ?? '',
      /PUBLIC_BASE_URL https:\/\/admin\.example\.com is not a loopback address/,
    );
  });

  test('nor behind a trusted proxy, nor with a sign-in domain beyond loopback', () => {
    const refusal = (env: Record<string, string>) => demoRefusal(loadConfig(env));
    for (const env of [{ AUTH_DOMAINS: 'localhost:8080,127.0.0.1:8080' }, { AUTH_DOMAINS: '[::1]:8080,http://localhost:3000' }])
      assert.equal(refusal(env), undefined, JSON.stringify(env));
    // Even a proxy on this machine: it is there to let others in.
    assert.match(refusal({ TRUST_PROXY: '127.0.0.1' }) ?? '', /TRUST_PROXY is set/);
    assert.match(refusal({ TRUST_PROXY: '10.0.0.0/8' }) ?? '', /TRUST_PROXY is set/);
    assert.ok(!(refusal({ TRUST_PROXY: '10.0.0.0/8' }) ?? '').includes('10.0.0.0'), 'the proxies are not named');
    assert.match(refusal({ AUTH_DOMAINS: 'localhost:8080,admin.example.com' }) ?? '', /AUTH_DOMAINS names admin\.example\.com/);
    assert.match(refusal({ AUTH_DOMAINS: 'https://admin.example.com' }) ?? '', /AUTH_DOMAINS names admin\.example\.com/);
  });
});

for (const engine of ENGINES) {
  describe(`a demo owner from an earlier loopback start, on a start beyond loopback (${engine})`, () => {
    let storage: Storage;
    let demoAdminId: string;
    const account = privateKeyToAccount(DEMO_PRIVATE_KEY);
    const demoWallet: TestWallet = { privateKey: DEMO_PRIVATE_KEY as `0x${string}`, account, address: account.address };

    before(async () => {
      storage = await createStorage(engine);
      const loopback = await startTestService(engine, { storage });
      try {
        demoAdminId = (await seedDemo(loopback.service.store, loopback.service.files))!.adminId;
        const signedIn = await request(loopback.baseUrl, '/api/auth/test', {
          headers: { ...(await signIn(demoWallet, loopback.config.auth.domains[0]!)) },
        });
        assert.equal(signedIn.status, 200, 'on loopback the demo owner signs in');
      } finally {
        await loopback.close();
      }
    });
    after(() => storage.drop());

    const starts: Record<string, string>[] = [
      { HOST: '0.0.0.0' },
      { PUBLIC_BASE_URL: 'https://admin.example.com' },
      { TRUST_PROXY: '10.0.0.1' },
    ];
    for (const env of starts) {
      test(`${Object.entries(env)[0]!.join('=')}: the start warns, and the published wallet's sign-ins are refused; others sign in`, async (t) => {
        const svc = await startTestService(engine, { storage, env });
        t.after(() => svc.close());
        const warning = svc.logs
          .map((line) => JSON.parse(line) as { level: number; msg: string; adminId?: string })
          .find((line) => line.adminId === demoAdminId);
        assert.equal(warning?.level, 40, 'a warning names the demo owner');
        assert.match(warning!.msg, /published development wallet 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266/);
        assert.match(warning!.msg, /its sign-ins are refused \(403 PUBLISHED_WALLET_REFUSED\)/);
        assert.ok(
          warning!.msg.includes(`wallet-admin admin set-wallet --admin ${demoAdminId} --wallet 0xYOUR_WALLET_ADDRESS`),
          warning!.msg,
        );

        const domain = svc.config.auth.domains[0]!;
        const refused = await request(svc.baseUrl, '/api/auth/test', { headers: { ...(await signIn(demoWallet, domain)) } });
        assertProblem(refused, 403, 'PUBLISHED_WALLET_REFUSED');
        assert.match(refused.json().detail, /published development wallet .*anyone holds its key/);
        assert.match(refused.json().detail, /wallet-admin admin set-wallet/);
        assert.ok(!refused.json().detail.includes('10.0.0.1'), 'the detail names no setting’s value');

        const fixture = await createTenantFixture(svc.service.store, 'Real');
        const ok = await request(svc.baseUrl, '/api/auth/test', { headers: { ...(await signIn(fixture.ownerWallet, domain)) } });
        assert.equal(ok.status, 200, ok.body);
      });
    }

    test('back on loopback, the demo owner signs in again (its data was never changed)', async (t) => {
      const svc = await startTestService(engine, { storage });
      t.after(() => svc.close());
      assert.ok(!svc.logs.some((line) => line.includes('PUBLISHED_WALLET_REFUSED')));
      const signedIn = await request(svc.baseUrl, '/api/auth/test', {
        headers: { ...(await signIn(demoWallet, svc.config.auth.domains[0]!)) },
      });
      assert.equal(signedIn.status, 200, signedIn.body);
    });
  });
}
