import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnService, waitForOutput } from '../helpers/service-process.ts';
import { freePort } from '../helpers/test-service.ts';

/*
 * @wallet-admin/client as a developer elsewhere gets it: docs/client.md's block packs it here, installs
 * the tarball into a new project in a temp folder (npm's registry, or its cache, for viem only) and
 * runs that example there against a service with the demo data; then tsc type-checks a use
 * of the installed package (and the example itself) with moduleResolution node16 and bundler.
 */

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT_DOC = readFileSync(path.join(REPO, 'docs/client.md'), 'utf8');
const MARKER = '<!-- client-example:';
const TSC = path.join(path.dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin/tsc');
const NODE_TYPES = path.join(REPO, 'node_modules/@types');

function exampleBlock(): string {
  const marker = CLIENT_DOC.indexOf(MARKER);
  assert.ok(marker > 0, "docs/client.md marks the client's example");
  const block = /```sh\n([\s\S]*?)\n```/.exec(CLIENT_DOC.slice(marker))?.[1];
  assert.ok(block, 'a sh block follows the marker');
  return block;
}

function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/**
 * A use of every kind of thing the package exports, and uses that must not compile: were its types
 * missing or `any`, each @ts-expect-error would be unused, which tsc reports as an error.
 */
const TYPED_USE = `import {
  createClient,
  fromEip1193,
  fromViemAccount,
  HttpError,
  paginate,
  ProblemError,
  type AuditEvent,
  type FileInfo,
  type Page,
  type ScopeRestoreResult,
  type WalletAdminClient,
} from '@wallet-admin/client';
import { privateKeyToAccount } from 'viem/accounts';

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
export const client: WalletAdminClient = createClient({ baseUrl: 'http://127.0.0.1:8080', signer: fromViemAccount(account) });
export const inABrowser = (provider: { request(args: { method: string; params?: unknown[] }): Promise<unknown> }) =>
  createClient({ baseUrl: 'https://admin.example.com', signer: fromEip1193(provider) });

export async function use(): Promise<number[]> {
  const wallet: string = (await client.authTest()).walletAddress;
  const page: Page<FileInfo> = await client.listFiles('demo', 'docs', { limit: 10 });
  const sizes = page.items.map((file) => file.size);
  const plan: ScopeRestoreResult = await client.restoreFolder('demo', 'docs', { backupTimestamp: '20261126_123814', dryRun: true });
  for await (const event of paginate((next) => client.listAudit('demo', { ...next, action: 'upload' }))) {
    const seen: AuditEvent = event;
    sizes.push(seen.operation?.counts.replaced ?? 0);
  }
  try {
    await client.deleteFile('demo', 'docs', 'hello.txt', { ifMatch: plan.etag });
  } catch (error) {
    if (error instanceof ProblemError) sizes.push(error.status, error.code.length);
    else if (error instanceof HttpError) sizes.push(error.status);
  }
  // @ts-expect-error a size is a number
  const wrong: string = page.items[0]!.size;
  // @ts-expect-error listFiles needs the folder
  await client.listFiles('demo');
  // @ts-expect-error the audit log has no such action
  await client.listAudit('demo', { action: 'rename' });
  // @ts-expect-error no such call
  await client.listEverything();
  return [...sizes, wallet.length, wrong.length];
}
`;

/** The settings of a project of that kind: a Node one (node16, Node's types) or a bundled app (bundler, the DOM's). */
const PROJECTS = {
  node16: { module: 'node16', moduleResolution: 'node16', lib: ['ES2022'], types: ['node'], typeRoots: [NODE_TYPES] },
  bundler: { module: 'esnext', moduleResolution: 'bundler', lib: ['ES2022', 'DOM'], types: [] },
};

test('the client package installs from its tarball into another project, type-checks there, and runs against the service', async (t) => {
  const temp = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-client-package-'));
  t.after(() => rm(temp, { recursive: true, force: true }));

  // The service with a first start's demo data (the example signs in as the demo owner).
  const port = await freePort();
  const served = spawnService({
    PATH: process.env.PATH!,
    HOME: process.env.HOME ?? temp,
    DATA_DIR: path.join(temp, 'data'),
    PORT: String(port),
  });
  t.after(() => served.stop());
  await waitForOutput(served, /listening on/);

  // As printed, but for the port; mktemp -d makes its folder under TMPDIR, here the test's.
  const script = exampleBlock().replace("baseUrl: 'http://127.0.0.1:8080'", `baseUrl: 'http://127.0.0.1:${port}'`);
  assert.notEqual(script, exampleBlock(), 'the example names the service at http://127.0.0.1:8080');
  const env = { ...process.env, TMPDIR: temp, npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
  const started = Date.now();
  const { code, output } = await runBash(script, REPO, env);
  assert.equal(code, 0, output);
  t.diagnostic(`docs/client.md's block (pack, install, run) took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.match(output, /^Demo owner \[/m);
  assert.match(output, new RegExp(`^http://127\\.0\\.0\\.1:${port}/api/channels/chn_\\w+/folders/docs/files/hello\\.txt ver_\\w+$`, 'm'));
  assert.match(output, /^hello from the client$/m);
  assert.match(output, /^hello\.txt 21$/m);
  assert.match(output, /^404 CHANNEL_NOT_FOUND$/m);

  const [packed] = (await readdir(temp)).filter((name) => /^tmp\.\w+$/.test(name));
  assert.ok(packed, `mktemp's folder in ${temp}`);
  const project = path.join(temp, packed, 'try-client');
  const installed = path.join(project, 'node_modules/@wallet-admin/client');

  await t.test('the package holds its build and its declarations, depends on nothing, and names no file it lacks', async () => {
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.type, 'module');
    assert.deepEqual(manifest.exports['.'], { types: './dist/index.d.ts', default: './dist/index.js' });
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) assert.equal(manifest[field], undefined, field);
    const files = readdirSync(installed, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(installed, path.join(entry.parentPath, entry.name)))
      .sort();
    assert.deepEqual(
      files.filter((file) => !file.startsWith('dist/') || !file.endsWith('.d.ts')),
      ['README.md', 'dist/LICENSE.noble-hashes', 'dist/index.js', 'package.json'],
    );
    assert.ok(files.includes('dist/index.d.ts'));
    // Bundled: no import of any module at all, let alone the service's.
    const code = await readFile(path.join(installed, 'dist/index.js'), 'utf8');
    assert.doesNotMatch(code, /^\s*import\s|\bimport\(|\brequire\(/m);
    for (const file of files.filter((name) => name.endsWith('.d.ts'))) {
      const declarations = await readFile(path.join(installed, file), 'utf8');
      for (const [, specifier] of declarations.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        assert.match(specifier!, /^\.\/[\w-]+\.js$/, `${file} imports ${specifier}`);
        assert.ok(files.includes(path.join('dist', specifier!.replace(/\.js$/, '.d.ts'))), `${file}: ${specifier} is in the package`);
      }
    }
  });

  for (const [name, options] of Object.entries(PROJECTS)) {
    await t.test(`tsc type-checks a use of it, and docs/client.md's example, with moduleResolution ${name}`, async () => {
      await writeFile(path.join(project, 'typed-use.ts'), TYPED_USE);
      const config = `tsconfig.${name}.json`;
      const compilerOptions = {
        ...options,
        target: 'ES2022',
        strict: true,
        noEmit: true,
        allowJs: true,
        checkJs: true,
        skipLibCheck: true,
      };
      await writeFile(path.join(project, config), JSON.stringify({ compilerOptions, files: ['typed-use.ts', 'try-client.mjs'] }));
      const checked = await promisify(execFile)(process.execPath, [TSC, '-p', config], { cwd: project }).catch(
        (error: { stdout: string; stderr: string }) => error,
      );
      assert.equal(`${checked.stdout}${checked.stderr}`, '', `tsc -p ${config}`);
    });
  }
});
