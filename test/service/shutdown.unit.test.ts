import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createSignInHeaders } from '../../src/auth/signing/sign-in-headers.ts';
import { DEMO_PRIVATE_KEY } from '../../src/demo/demo-seed.ts';
import { builtBin } from '../helpers/bin.ts';
import { request } from '../helpers/http.ts';
import { assertNoSecretsInOutput } from '../helpers/log-secrets.ts';
import { spawnService, waitForOutput } from '../helpers/service-process.ts';
import { freePort } from '../helpers/test-service.ts';

/**
 * A bound on an exit that must come, so that a shutdown that hangs fails the test rather than
 * stalling it: far above SHUTDOWN_TIMEOUT (1 s here), so a loaded machine never trips it.
 */
const EXIT_BOUND_MS = 30_000;

function exitWithin<T>(exited: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: the process had not exited after ${EXIT_BOUND_MS} ms`)), EXIT_BOUND_MS);
  });
  return Promise.race([exited, bound]).finally(() => clearTimeout(timer));
}

/** Every file name under `dir`, at any depth. */
async function namesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map((name) => path.basename(name));
}

/** The names of the files (not folders) under `dir`. */
async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => entry.name);
}

async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never: ${what}`);
}

describe('shutdown', () => {
  test('SIGTERM during an upload whose client never stops sending: cut at SHUTDOWN_TIMEOUT, the process exits, nothing stored', async (t) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-shutdown-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const served = spawnService({ DATA_DIR: dataDir, PORT: String(port), SHUTDOWN_TIMEOUT: '1' });
    t.after(() => served.stop());
    // Listening, so the demo's own writes (their temporary files too) are done and SIGTERM is handled.
    await waitForOutput(served, /listening on/);
    const origin = `http://127.0.0.1:${port}`;
    const headers = await createSignInHeaders({ privateKey: DEMO_PRIVATE_KEY, domain: `127.0.0.1:${port}`, uri: origin, ttlSeconds: 600 });

    const storage = path.join(dataDir, 'storage');
    // What the demo stored; a write cut before it was recorded must leave nothing beside it.
    const storedBefore = (await filesUnder(storage)).sort();
    // A body announced at 1 GB, sent a few bytes at a time for as long as the socket is open.
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    const head = [
      'PUT /api/channels/demo/folders/slow/files/endless.bin HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
      'Content-Type: application/octet-stream',
      `Content-Length: ${1_000_000_000}`,
    ].join('\r\n');
    socket.write(`${head}\r\n\r\n`);
    const trickle = setInterval(() => socket.writable && socket.write('x'.repeat(64)), 20);
    t.after(() => clearInterval(trickle));
    // The upload's temporary file, beside the fresh key its bytes would get.
    await until(async () => (await namesUnder(storage)).some((name) => name.startsWith('.wa-tmp-')), 'the upload is being written');

    served.child.kill('SIGTERM');
    assert.equal(await exitWithin(served.exited, 'SIGTERM during a slow upload'), 0);
    assert.match(served.output(), /"msg":"shutting down"/);
    assert.match(served.output(), /requests still in flight at the shutdown deadline: their connections are cut/);
    assert.ok(socket.destroyed || (await new Promise((resolve) => socket.once('close', resolve))), 'the upload connection was closed');

    // The next start sees no such file either (its temporary file, if any, is cleared).
    const again = spawnService({ DATA_DIR: dataDir, PORT: String(port) });
    t.after(() => again.stop());
    await waitForOutput(again, /listening on/);
    const listed = await request(origin, '/api/channels/demo/folders/slow/files', { headers });
    assert.equal(listed.status, 200, listed.body);
    assert.deepEqual(listed.json().items, []);
    // Its temporary file is cleared, and its journal entry settled: the storage holds what it held before.
    assert.deepEqual((await filesUnder(storage)).sort(), storedBefore, 'the cut upload stored nothing');
    again.child.kill('SIGTERM');
    assert.equal(await exitWithin(again.exited, 'SIGTERM when idle'), 0);
  });

  test('with its standard output closed (`serve | head -1`), the service keeps answering and SIGTERM ends it', async (t) => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-shutdown-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const child = spawn(process.execPath, [builtBin(), 'serve'], {
      env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: String(port), SHUTDOWN_TIMEOUT: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.after(() => child.kill('SIGKILL'));
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // As `head -1` does: read the first line, then close the pipe's read end. A service that
    // exits before its first line fails the test with what it said, rather than leaving it waiting.
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      child.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('\n')) resolve();
      });
      void exited.then((code) => reject(new Error(`the service exited (${code}) before its first line:\n${errors}`)));
    });
    child.stdout.destroy();

    // Requests log a line each (about 250 bytes), into a pipe nobody reads: 400 of them are more
    // than one 64 KiB batch, which the service writes at once, and so meets the closed pipe.
    const origin = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 400; i++) assert.equal((await request(origin, '/healthz')).status, 200);
    assert.equal((await request(origin, '/healthz')).status, 200, 'the service goes on without its reader');

    child.kill('SIGTERM');
    assert.equal(await exitWithin(exited, 'SIGTERM with standard output closed'), 0, errors);
    // Its standard output went nowhere; what reached standard error is held to the same rules.
    assertNoSecretsInOutput({ stderr: errors }, []);
  });
});
