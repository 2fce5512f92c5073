import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnService, waitForOutput } from '../helpers/service-process.ts';
import { freePort } from '../helpers/test-service.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(path.join(REPO, 'README.md'), 'utf8');
const MARKER = '<!-- walk-through:';
/** The block's first line: the port the service listens on, which the CLI signs for and BASE names. */
const PORT_DEFINITION = /^export PORT=8080 .*\n/;

/** bash -euo pipefail with stdin closed: a socket as stdin makes bash read bashrc files as for a remote shell. */
function runBash(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The fenced block that follows the marker, as printed. */
function walkThrough(): string {
  const marker = README.indexOf(MARKER);
  assert.ok(marker > 0, 'README marks its walk-through');
  const match = /```sh\n([\s\S]*?)\n```/.exec(README.slice(marker));
  assert.ok(match, 'a sh block follows the marker');
  return match[1]!;
}

test("README's walk-through runs as printed against a first start with the demo data", async (t) => {
  assert.doesNotMatch(README, /npx wallet-admin/, 'npx would fetch a registry package outside the project folder');
  // What the README runs must not be what it warns against.
  assert.doesNotMatch(README, /not `npm exec --no -- wallet-admin`/, 'the README warns against the command it uses');
  const block = walkThrough();
  assert.match(block, PORT_DEFINITION, 'the block says where the service listens first');
  assert.ok(block.includes('\nBASE=http://127.0.0.1:$PORT\n'), 'and addresses it there');

  // The block runs in the project's folder, as the README says (npm exec finds the project's own
  // bin there only), with the service on its defaults but for the port and an empty DATA_DIR: the
  // demo data of a first start. A .wallet-admin/ of the developer's own is put back afterwards.
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-walk-through-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const own = path.join(REPO, '.wallet-admin');
  const kept = path.join(dataDir, 'kept-wallet-admin');
  if (existsSync(own)) await rename(own, kept);
  t.after(async () => {
    await rm(own, { recursive: true, force: true });
    if (existsSync(kept)) await rename(kept, own);
  });
  const port = await freePort();
  const env = { PATH: process.env.PATH!, HOME: process.env.HOME ?? dataDir, DATA_DIR: path.join(dataDir, 'data') };
  // PORT is the service's alone, as `PORT=… npm start` in another terminal gives it: the block's own
  // first line must tell the CLI (its `sign`) where the service is.
  const served = spawnService({ ...env, PORT: String(port), OUTBOUND_ALLOW: '127.0.0.0/8' });
  t.after(() => served.stop());
  await waitForOutput(served, /listening on/);

  // The only change: the port the block itself defines.
  const script = block.replace(PORT_DEFINITION, `export PORT=${port}\n`);
  const { code, stdout, stderr } = await runBash(script, REPO, env);
  assert.equal(code, 0, `${stdout}\n${stderr}`);
  assert.ok(existsSync(path.join(own, 'headers.txt')), 'the signed headers are in .wallet-admin/');

  assert.match(stdout, /"name":"demo"/);
  assert.match(stdout, /\{"name":"reports","fileCount":1\},\{"name":"welcome","fileCount":2\}/);
  const backup = /^backup (\d{8}_\d{6})$/m.exec(stdout)?.[1];
  assert.ok(backup, stdout);
  const url = new RegExp(`^restored http://127\\.0\\.0\\.1:${port}/api/channels/chn_\\w+/folders/docs/files/notes\\.txt$`, 'm').exec(
    stdout,
  );
  assert.ok(url, stdout);
  const after = stdout.slice(url.index);
  const first = after.indexOf('\nfirst version\n');
  const second = after.indexOf('\nsecond version\n');
  assert.ok(first > 0 && second > first, 'the restore brought the first version back, its undo the second');
  assert.match(stdout, /^chn_\w+ {2}t_\w+ {2}demo$/m);
  // The webhook's receiver got the restore, and the typed client's verifier accepted its signature.
  assert.match(stdout, /^Verified: event [0-9a-f]{64} \(restore\)/m, stdout);
  assert.match(stdout, new RegExp(`^Restored docs/notes\\.txt from backup ${backup} `, 'm'));

  // The signed headers were written where git ignores them.
  const ignored = await promisify(execFile)('git', ['check-ignore', '.wallet-admin/headers.txt'], { cwd: REPO });
  assert.equal(ignored.stdout.trim(), '.wallet-admin/headers.txt');

  served.child.kill('SIGTERM');
  assert.equal(await served.exited, 0);
});
