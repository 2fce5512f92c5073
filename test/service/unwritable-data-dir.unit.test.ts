import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { createSignInHeaders } from '../../src/auth/signing/sign-in-headers.ts';
import { DEMO_PRIVATE_KEY } from '../../src/demo/demo-seed.ts';
import { request } from '../helpers/http.ts';
import { spawnService, waitForOutput } from '../helpers/service-process.ts';
import { freePort } from '../helpers/test-service.ts';

/**
 * A fresh folder owned by whoever runs the test, like the clone itself: the service, started bound
 * by file modes (spawnService), reads both wherever they are, so the test depends on neither's place.
 */
async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-unwritable-'));
  t.after(() => rm(base, { recursive: true, force: true }));
  return base;
}

async function readOnly(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isDirectory()) await chmod(path.join(entry.parentPath, entry.name), 0o555);
  }
  await chmod(dir, 0o555);
}

const NO_STACK = /\n\s+at /;

describe('a DATA_DIR the service cannot write', () => {
  test('empty: start-up stops, naming the path and the cause, without a stack; nothing listens', async (t) => {
    const dataDir = path.join(await tempDir(t), 'data');
    await mkdir(dataDir, { mode: 0o555 });
    await chmod(dataDir, 0o555);
    const served = spawnService({ DATA_DIR: dataDir, PORT: String(await freePort()) }, { boundByFileModes: true });
    t.after(() => served.stop());
    assert.equal(await served.exited, 1, served.output());
    assert.ok(
      served
        .output()
        .includes(`wallet-admin: DATA_DIR ${dataDir} is not writable (EACCES: permission denied): cannot write a file in ${dataDir}.`),
      served.output(),
    );
    assert.doesNotMatch(served.output(), NO_STACK);
    assert.doesNotMatch(served.output(), /listening/);
  });

  test('storage turned read-only under a running service: uploads and restores answer 503 STORAGE_UNAVAILABLE, nothing changes; a delete, which writes no byte, still keeps the bytes; the next start refuses', async (t) => {
    const dataDir = path.join(await tempDir(t), 'data');
    await mkdir(dataDir);
    const port = await freePort();
    const served = spawnService({ DATA_DIR: dataDir, PORT: String(port) }, { boundByFileModes: true });
    t.after(() => served.stop());
    await waitForOutput(served, /created demo tenant/);

    const origin = `http://127.0.0.1:${port}`;
    const headers = await createSignInHeaders({ privateKey: DEMO_PRIVATE_KEY, domain: `127.0.0.1:${port}`, uri: origin, ttlSeconds: 600 });
    const file = '/api/channels/demo/folders/welcome/files/README.txt';
    const before = await request(origin, file, { headers });
    assert.equal(before.status, 200);

    await readOnly(path.join(dataDir, 'storage'));
    const attempts = [
      await request(origin, file, { method: 'PUT', headers, body: 'replaced' }),
      await request(origin, '/api/channels/demo/folders/new/files/a.txt', { method: 'PUT', headers, body: 'new' }),
      // The demo's prices.csv was changed after its backup: restoring it stores a copy of the backup's bytes.
      await request(origin, '/api/channels/demo/folders/welcome/files/prices.csv/restore', { method: 'POST', headers }),
    ];
    for (const answer of attempts) {
      assert.equal(answer.status, 503, answer.body);
      assert.equal(answer.headers['content-type'], 'application/problem+json');
      assert.equal(answer.json().code, 'STORAGE_UNAVAILABLE');
      assert.ok(!answer.body.includes(dataDir), `the client learns no path: ${answer.body}`);
    }
    const after = await request(origin, file, { headers });
    assert.equal(after.status, 200);
    assert.equal(after.body, before.body, 'the file is as it was');
    // A delete moves the record's bytes to a version in the database and writes none.
    assert.equal((await request(origin, file, { method: 'DELETE', headers })).status, 204);
    const [deleted] = (await request(origin, `${file}/versions`, { headers })).json().items;
    assert.equal(deleted.kind, 'deleted');
    assert.equal(deleted.sha256, before.headers.etag?.replaceAll('"', ''), 'the deleted version keeps the bytes');
    // The log keeps the cause for the operator.
    await waitForOutput(served, /"level":50.*EACCES: permission denied/);

    served.child.kill('SIGTERM');
    assert.equal(await served.exited, 0);

    const again = spawnService({ DATA_DIR: dataDir, PORT: String(port) }, { boundByFileModes: true });
    t.after(() => again.stop());
    assert.equal(await again.exited, 1, again.output());
    assert.ok(
      again
        .output()
        .includes(
          `DATA_DIR ${dataDir} is not writable (EACCES: permission denied): cannot write a file in ${path.join(dataDir, 'storage')}.`,
        ),
      again.output(),
    );
    assert.doesNotMatch(again.output(), NO_STACK);
  });

  test('a metadata database the service may not write: start-up refuses, naming the file', async (t) => {
    const dataDir = path.join(await tempDir(t), 'data');
    await mkdir(dataDir);
    const port = await freePort();
    const first = spawnService({ DATA_DIR: dataDir, PORT: String(port), NODE_ENV: 'production' }, { boundByFileModes: true });
    t.after(() => first.stop());
    await waitForOutput(first, /listening on/);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);

    const database = path.join(dataDir, 'metadata.sqlite');
    await chmod(database, 0o444);
    const again = spawnService({ DATA_DIR: dataDir, PORT: String(port) }, { boundByFileModes: true });
    t.after(() => again.stop());
    assert.equal(await again.exited, 1, again.output());
    assert.ok(
      again.output().includes(`DATA_DIR ${dataDir} is not writable (EACCES: permission denied): cannot open ${database} for writing.`),
      again.output(),
    );
    assert.doesNotMatch(again.output(), /listening/);
  });
});
