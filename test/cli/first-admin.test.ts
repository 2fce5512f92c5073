import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from '../helpers/http.ts';
import { spawnService, waitForOutput } from '../helpers/service-process.ts';
import { freePort } from '../helpers/test-service.ts';
import { newWallet, signIn } from '../helpers/wallets.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** bash -euo pipefail with stdin closed (a socket as stdin makes bash read bashrc files). */
function runBash(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('a production first start on empty data prints commands that, run as printed, let the first owner sign in', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-first-admin-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const env = { PATH: process.env.PATH!, HOME: process.env.HOME ?? dataDir, DATA_DIR: dataDir, PORT: String(port), NODE_ENV: 'production' };
  const served = spawnService(env);
  t.after(() => served.stop());
  const [banner] = await waitForOutput(served, /No tenant exists yet[\s\S]*?\n\n((?: {2}.+\n)+)/);
  const commands = banner.split('\n\n')[1]!.trim();
  assert.match(commands, /0xYOUR_WALLET_ADDRESS/);
  assert.doesNotMatch(commands, /npx /);
  const baseUrl = `http://127.0.0.1:${port}`;

  // The banner links the console and the API reference, as the demo's does, and the links work.
  const [, reference, openApi] = await waitForOutput(served, /The API reference: (\S+) \(the OpenAPI document: (\S+)\)\./);
  assert.equal(reference, `${baseUrl}/api/docs`);
  assert.equal(openApi, `${baseUrl}/api/openapi.json`);
  assert.ok(served.output().includes(`the console at ${baseUrl}/console/`), served.output());
  for (const url of [reference!, openApi!]) assert.equal((await fetch(url)).status, 200, url);

  // The only change: the operator's own wallet.
  const owner = newWallet();
  const run = await runBash(commands.replaceAll('0xYOUR_WALLET_ADDRESS', owner.address), env);
  assert.equal(run.code, 0, run.output);

  const headers = await signIn(owner, `127.0.0.1:${port}`);
  const answer = await request(baseUrl, '/api/auth/test', { headers: { ...headers } });
  assert.equal(answer.status, 200, answer.body);
  assert.equal(answer.json().principal.channelIds.length, 1, 'linked to the channel it created');
  assert.equal(answer.json().principal.ownerAdminId, 'N/A', 'an owner admin');

  served.child.kill('SIGTERM');
  assert.equal(await served.exited, 0);
});
