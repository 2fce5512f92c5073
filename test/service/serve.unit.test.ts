import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DEMO_PRIVATE_KEY, DEMO_WALLET } from '../../src/demo/demo-seed.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { assertProblem } from '../helpers/assertions.ts';
import { runCli } from '../helpers/cli.ts';
import { seedTenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { spawnService as serve, waitForOutput } from '../helpers/service-process.ts';
import { freePort } from '../helpers/test-service.ts';
import { runAsUser } from '../helpers/user-shell.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** The Node.js running the tests, and its npm, for the commands a user runs. */
const NODE_BIN = path.dirname(process.execPath);
/** The welcome's curl command, and its URL. */
const CURL = /curl -sS '([^']+)' \\(\n\s+-H '[^']+'( \\)?)+/;

/** The headers `wallet-admin sign` prints, one `Name: value` a line. */
function headerLines(output: string): Record<string, string> {
  return Object.fromEntries([...output.matchAll(/^(X-[\w-]+): (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

/** Pulls the -H 'Name: value' pairs out of the printed curl command, as a shell would. */
function curlHeaders(curl: string): Record<string, string> {
  return Object.fromEntries([...curl.matchAll(/-H '([^:]+): ([^']*)'/g)].map((m) => [m[1]!, m[2]!]));
}

describe('wallet-admin serve', () => {
  test('first start on an empty DATA_DIR seeds a demo and prints a curl that answers 200; SIGTERM exits cleanly', async (t) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-serve-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const served = serve({ DATA_DIR: dataDir, PORT: String(port) });
    t.after(() => served.stop());

    const [curl] = await waitForOutput(served, CURL);
    const url = curl.match(/curl -sS '([^']+)'/)![1]!;
    assert.equal(url, `http://127.0.0.1:${port}/api/auth/test`);
    const response = await request(url, url, { headers: curlHeaders(curl) });
    assert.equal(response.status, 200, response.body);
    assert.equal(response.json().principal.displayName, 'Demo owner');
    await waitForOutput(served, /"reqId":"[0-9a-f-]{36}".*"msg":"request completed"/);

    // The demo channel holds example files, one backup, and a prices.csv changed since it.
    const demoState = async () => {
      const api = (p: string) => request(url, `/api/channels/demo${p}`, { headers: curlHeaders(curl) });
      const files = await Promise.all(
        ['welcome', 'reports'].map(async (folder) =>
          (await api(`/folders/${folder}/files`)).json().items.map((f: { filename: string }) => `${folder}/${f.filename}`),
        ),
      );
      const versions = (await api('/folders/welcome/files/prices.csv/versions')).json().items as { kind: string }[];
      return {
        files: files.flat().sort(),
        backups: (await api('/backups')).json().items.length,
        versions: versions.map((v) => v.kind).sort(),
      };
    };
    const seeded = {
      files: ['reports/q3-summary.md', 'welcome/README.txt', 'welcome/prices.csv'],
      backups: 1,
      versions: ['backup', 'replaced'],
    };
    assert.deepEqual(await demoState(), seeded);
    assert.match(served.output(), /Channel "demo" holds example files, one backup and a changed welcome\/prices.csv to restore/);

    // The banner and the "listening" line name the console, which the built service serves.
    const consoleUrl = `http://127.0.0.1:${port}/console/`;
    assert.ok(served.output().includes(`Or open the admin console at ${consoleUrl} and sign in`), served.output());
    assert.ok(served.output().includes(`"consoleUrl":"${consoleUrl}"`), 'the listening log line names the console');
    const page = await request(consoleUrl, consoleUrl);
    assert.equal(page.status, 200, page.body);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    // …and the API reference, served by the built service too.
    const apiReferenceUrl = `http://127.0.0.1:${port}/api/docs`;
    assert.ok(served.output().includes(`The API reference: ${apiReferenceUrl}`), served.output());
    assert.ok(served.output().includes(`"apiReferenceUrl":"${apiReferenceUrl}"`), 'the listening log line names the API reference');
    const reference = await request(apiReferenceUrl, apiReferenceUrl);
    assert.equal(reference.status, 200, reference.body);
    assert.match(reference.body, /swagger-ui-bundle\.js/);

    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0);
    assert.match(served.output(), /shutting down/);

    // The second start finds data and seeds nothing more, and welcomes again: the demo owner still
    // holds the published wallet (a first start whose welcome went unseen is followed by one).
    const again = serve({ DATA_DIR: dataDir, PORT: String(port) });
    t.after(() => again.stop());
    const [curlAgain] = await waitForOutput(again, CURL);
    assert.doesNotMatch(again.output(), /First start/);
    assert.match(
      again.output(),
      /Demo: owner admin adm_\w+ of tenant t_\w+ holds\nthe published development wallet 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266/,
    );
    assert.ok(again.output().includes(`Or open the admin console at ${consoleUrl} and sign in`), again.output());
    assert.equal((await request(url, url, { headers: curlHeaders(curlAgain) })).status, 200);
    assert.deepEqual(await demoState(), seeded);

    // The welcome's sign command, run as printed in the project's folder (only the key put in, and
    // PORT nowhere but on the line), signs for this service; without the PORT it names, for another.
    const signLine = /`(PORT=\d+ npm exec --no -- wallet-admin sign --private-key <key>)`/.exec(again.output())?.[1];
    assert.ok(signLine, again.output());
    const signed = await runAsUser(signLine.replace('<key>', DEMO_PRIVATE_KEY), { cwd: REPO, nodeBin: NODE_BIN, home: dataDir });
    assert.equal(signed.code, 0, signed.output);
    assert.equal((await request(url, url, { headers: headerLines(signed.output) })).status, 200);
    const unported = await runAsUser(signLine.replace(/^PORT=\d+ /, '').replace('<key>', DEMO_PRIVATE_KEY), {
      cwd: REPO,
      nodeBin: NODE_BIN,
      home: dataDir,
    });
    assertProblem(await request(url, url, { headers: headerLines(unported.output) }), 401, 'AUTH_DOMAIN_MISMATCH');
    again.child.kill('SIGTERM');
    assert.equal(await again.exited, 0);

    // Once the demo owner has another wallet, or is suspended, no start welcomes.
    const ownerId = /owner admin (adm_\w+)/.exec(served.output())![1]!;
    const otherWallet = '0x70997970C51812dc3A010c7d01b50e0d17dc79C8';
    const start = async (expectWelcome: boolean) => {
      const started = serve({ DATA_DIR: dataDir, PORT: String(port) });
      t.after(() => started.stop());
      await waitForOutput(started, expectWelcome ? CURL : /listening on/);
      started.child.kill('SIGTERM');
      assert.equal(await started.exited, 0);
      if (!expectWelcome) assert.doesNotMatch(started.output(), /Demo:|First start|curl|X-SIG/);
    };
    const cli = async (...args: string[]) => assert.equal((await runCli(args, { DATA_DIR: dataDir })).code, 0);
    await cli('admin', 'set-wallet', '--admin', ownerId, '--wallet', otherWallet);
    await start(false);
    await cli('admin', 'set-wallet', '--admin', ownerId, '--wallet', DEMO_WALLET);
    await start(true);
    await cli('admin', 'set-status', '--admin', ownerId, '--status', 'SUSPENDED');
    await start(false);
  });

  test('a port another program listens on stops the start before it writes anything, naming the port and a free one; there the welcome follows', async (t) => {
    const parent = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-serve-'));
    t.after(() => rm(parent, { recursive: true, force: true }));
    const dataDir = path.join(parent, 'data');
    const holder = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    t.after(() => new Promise((resolve) => holder.close(resolve)));

    const refused = serve({ DATA_DIR: dataDir, PORT: String(port) });
    t.after(() => refused.stop());
    assert.equal(await refused.exited, 1);
    const output = refused.output();
    const suggested = /e\.g\. PORT=(\d+) npm start \((\d+) is free now\)/.exec(output);
    assert.ok(suggested && suggested[1] === suggested[2] && suggested[1] !== String(port), output);
    // Exactly, with a real line break between what happened and what to do (not an escaped \x0a), as the README prints it.
    const expected =
      `wallet-admin: port ${port} on 127.0.0.1 is in use: another program (or another wallet-admin) listens there. Nothing was started and nothing was written.\n` +
      `Stop that program, or start on another port, e.g. PORT=${suggested[1]} npm start (${suggested[1]} is free now), and give the CLI the same PORT (export PORT=${suggested[1]}) so that wallet-admin sign signs for that service.\n`;
    assert.equal(output, expected);
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const printed = /When the port is taken[\s\S]*?```text\n([\s\S]*?)```/.exec(readme)?.[1];
    assert.equal(printed, expected.replaceAll(String(port), '8080').replaceAll(suggested[1]!, '8081'), 'the README shows it as printed');
    assert.ok(!existsSync(dataDir), 'DATA_DIR was not even made');

    // Where it suggests: the first start, with the whole welcome.
    const served = serve({ DATA_DIR: dataDir, PORT: suggested[1]! });
    t.after(() => served.stop());
    const [curl, url] = await waitForOutput(served, CURL);
    await waitForOutput(served, /The API reference: /);
    assert.match(served.output(), /First start: created demo tenant t_\w+, owner admin adm_\w+ and channel chn_\w+/);
    assert.ok(served.output().includes(`Or open the admin console at http://127.0.0.1:${suggested[1]}/console/`), served.output());
    assert.equal((await request(url!, url!, { headers: curlHeaders(curl) })).status, 200);
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0);
  });

  test('NODE_ENV=production creates no data implicitly', async (t) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-serve-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const served = serve({ DATA_DIR: dataDir, PORT: String(await freePort()), NODE_ENV: 'production' });
    t.after(() => served.stop());
    await waitForOutput(served, /listening on/);
    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0);
    assert.doesNotMatch(served.output(), /First start|curl/);
    assert.match(served.output(), /No demo data was created on this first start on empty data: NODE_ENV=production\./);
    const tenant = await runCli(['tenant', 'create', '--name', 'First', '--json'], { DATA_DIR: dataDir });
    const list = await runCli(['admin', 'list', '--tenant', tenant.json().id, '--json'], { DATA_DIR: dataDir });
    assert.deepEqual(list.json().items, [], 'no demo admin was created');
  });

  for (const [where, env, reason] of [
    ['listening on every interface (HOST=0.0.0.0)', { HOST: '0.0.0.0' }, 'HOST 0.0.0.0 is not a loopback address'],
    [
      'published at a public address (PUBLIC_BASE_URL=https://admin.example.com)',
      { PUBLIC_BASE_URL: 'https://admin.example.com' },
      'PUBLIC_BASE_URL https://admin.example.com is not a loopback address',
    ],
  ] as const) {
    test(`a first start ${where} creates no demo data, says why and how to create the first admin`, async (t) => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-serve-'));
      t.after(() => rm(dataDir, { recursive: true, force: true }));
      const served = serve({ DATA_DIR: dataDir, PORT: String(await freePort()), ...env });
      t.after(() => served.stop());
      await waitForOutput(served, /listening on/);
      const [notice] = await waitForOutput(served, /"msg":"No demo data was created on this first start[^"]*"/);
      served.child.kill('SIGTERM');
      assert.equal(await served.exited, 0);
      assert.ok(notice.includes(reason), notice);
      for (const command of ['tenant create', 'admin create', 'channel create', 'channel link'])
        assert.ok(notice.includes(`wallet-admin ${command}`), command);
      assert.doesNotMatch(served.output(), /created demo tenant|curl/);
      const store = await openMetadataStore({ dataDir });
      try {
        assert.equal(await store.isEmpty(), true, 'no demo tenant, admin or channel');
      } finally {
        await store.close();
      }

      // A start on data that exists says nothing about demo data.
      const seeded = await seedTenantFixture({ dataDir }, 'Real');
      const again = serve({ DATA_DIR: dataDir, PORT: String(await freePort()), ...env });
      t.after(() => again.stop());
      await waitForOutput(again, /listening on/);
      again.child.kill('SIGTERM');
      assert.equal(await again.exited, 0);
      assert.doesNotMatch(again.output(), /demo data/);
      assert.ok(seeded.tenant.id);
    });
  }

  test('a bad setting stops start-up with a message naming it', async () => {
    const served = serve({ PORT: 'eighty', AUTH_PLAIN_MESSAGES: 'sometimes', DATA_DIR: os.tmpdir() });
    assert.notEqual(await served.exited, 0);
    assert.match(served.output(), /PORT/);
    assert.match(served.output(), /AUTH_PLAIN_MESSAGES/);
  });

  test('a bad URL setting stops start-up with a message naming it and its host (an RPC URL not even that), and never its password', async () => {
    const secret = 'pr0d-Passw0rd';
    const served = serve({
      DATA_DIR: os.tmpdir(),
      DATABASE_URL: `postgres://wallet:${secret}@db.internal:notaport/wallet_admin`,
      REDIS_URL: `redis://:${secret}@cache.internal:notaport`,
      AUTH_RPC_URL: `wss://rpc:${secret}@rpc.internal/`,
      STORAGE: 's3',
      S3_BUCKET: 'files',
      S3_ENDPOINT: `https://key:${secret}@s3.internal:99999`,
      PUBLIC_BASE_URL: `https://admin:${secret}@admin.example.com:port`,
      S3_PUBLIC_BASE_URL: `ftp://cdn:${secret}@cdn.example.com/`,
      FILE_URL_SIGNING: 'true',
      FILE_URL_SECRET: secret,
    });
    assert.notEqual(await served.exited, 0);
    const output = served.output();
    const hosts: [string, string][] = [
      ['DATABASE_URL', 'db.internal'],
      ['REDIS_URL', 'cache.internal'],
      ['S3_ENDPOINT', 's3.internal'],
      ['PUBLIC_BASE_URL', 'admin.example.com'],
      ['S3_PUBLIC_BASE_URL', 'cdn.example.com'],
    ];
    for (const [name, host] of hosts) {
      assert.match(output, new RegExp(`${name} must be`), output);
      assert.ok(output.includes(host), `${name}'s host is shown: ${output}`);
    }
    // An RPC URL is named, never quoted: providers put their API key in its path.
    assert.match(output, /AUTH_RPC_URL must be/);
    assert.ok(!output.includes('rpc.internal'), output);
    assert.match(output, /FILE_URL_SECRET must be/);
    assert.ok(!output.includes(secret), output);
  });
});
