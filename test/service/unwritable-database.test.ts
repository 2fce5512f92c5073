import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { seedTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { type HttpResponse, request } from '../helpers/http.ts';
import { setReadOnly } from '../helpers/postgres.ts';
import { spawnService, waitForOutput, waitUntilReady } from '../helpers/service-process.ts';
import { createStorage, freePort, storageEnv } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const run = promisify(execFile);

/**
 * Run time, not start-up (unwritable-data-dir.unit.test.ts has that): the service is up, then what it
 * writes to stops taking writes. SQLite cannot be made so by permissions at run time: Linux checks
 * them when a file is opened, and SQLite keeps its file, -wal and -shm open for the process's life
 * (a chmod or a read-only remount, which the kernel refuses while files are open for writing, leaves
 * writes working). PostgreSQL can: a failover to a hot standby, or default_transaction_read_only.
 * A full disk (507) is the SQLite case, below.
 */

/** The answer a refused write must be: the status and code, in the one problem format, without a path. */
function assertRefused(answer: HttpResponse, status: number, code: string, what: string): void {
  assert.equal(answer.status, status, `${what}: ${answer.body}`);
  assert.equal(answer.headers['content-type'], 'application/problem+json', what);
  assert.equal(answer.json().code, code, what);
}

/** Reads until one succeeds: the pool replaces the connections the database ended. Bounded, not timed. */
async function untilReadable(client: FilesClient): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const answer = await client.backups();
    if (answer.status === 200) return;
    assert.equal(answer.status, 503, `a read while the pool reconnects: ${answer.body}`);
    await sleep(50);
  }
  assert.fail('the service never read again');
}

/** Writes a file until the filesystem has no byte left; returns its path. */
async function fillUp(file: string): Promise<string> {
  const handle = await open(file, 'w');
  try {
    for (const size of [64 * 1024, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          await handle.write(chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    await handle.close();
  }
  return file;
}

/** The service in its own process on `env` (stopped after the test), and its owner signed in. */
async function serveSignedIn(t: TestContext, env: Record<string, string>, fixture: TenantFixture) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const served = spawnService({ ...env, PORT: String(port) });
  t.after(() => served.stop());
  await waitUntilReady(served, baseUrl);
  const headers = { ...(await signIn(fixture.ownerWallet, `127.0.0.1:${port}`)) };
  return { served, baseUrl, headers, client: new FilesClient(baseUrl, fixture.channel.id, headers) };
}

describe('a metadata database that stops taking writes under a running service', () => {
  test('PostgreSQL turned read-only: backup, logout and upload answer 503 SERVICE_UNAVAILABLE, nothing changes, and all works once it takes writes again', async (t) => {
    const storage = await createStorage('postgres');
    t.after(() => storage.drop());
    const fixture = await seedTenantFixture(storage, 'ReadOnly');
    const { served, baseUrl, headers, client } = await serveSignedIn(t, storageEnv(storage), fixture);

    assert.equal((await client.put('docs', 'a.txt', 'kept')).status, 201);
    assert.equal((await client.backup()).status, 201);
    const backupsBefore = (await client.backups()).json().items;
    await nextSecond();

    await setReadOnly(storage.databaseUrl!, true);
    await untilReadable(client);
    const refused: [string, HttpResponse][] = [
      ['backup', await client.backup()],
      ['logout', await request(baseUrl, '/api/auth/logout', { method: 'POST', headers })],
      ['logout everywhere', await request(baseUrl, '/api/auth/logout?all=true', { method: 'POST', headers })],
      ['upload', await client.put('docs', 'a.txt', 'replaced')],
    ];
    for (const [what, answer] of refused) {
      assertRefused(answer, 503, 'SERVICE_UNAVAILABLE', what);
      assert.match(answer.json().detail, /cannot be written now; nothing was changed/, what);
    }
    // The log has the cause for the operator.
    await waitForOutput(served, /read-only transaction/);

    // Nothing changed: the message still signs in, the backups and the file are as they were.
    assert.equal((await request(baseUrl, '/api/auth/test', { headers })).status, 200, 'the logout was not recorded');
    assert.deepEqual((await client.backups()).json().items, backupsBefore);
    const file = await client.get('docs', 'a.txt');
    assert.equal(file.body, 'kept');
    assert.equal(file.headers.etag, `"${sha256('kept')}"`);

    // Writable again: the same requests succeed, on the same service.
    await setReadOnly(storage.databaseUrl!, false);
    await untilReadable(client);
    assert.equal((await client.put('docs', 'a.txt', 'replaced')).status, 200);
    assert.equal((await client.backup()).status, 201);
    assert.equal((await request(baseUrl, '/api/auth/logout', { method: 'POST', headers })).status, 204);
    assert.equal((await request(baseUrl, '/api/auth/test', { headers })).json().code, 'AUTH_MESSAGE_REVOKED');
    assert.doesNotMatch(served.output(), /"statusCode":500|INTERNAL_ERROR/);
  });

  test('a full disk (DATA_DIR on a 4 MiB tmpfs, SQLite): uploads, backups and logouts that do not fit answer 507 INSUFFICIENT_STORAGE, nothing changes, and all works once there is room', {
    skip: process.getuid?.() !== 0 ? 'mounting a tmpfs needs root: run as root for the full-disk check' : false,
  }, async (t) => {
    const mountPoint = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-full-'));
    await run('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
    t.after(async () => {
      await run('umount', ['-l', mountPoint]).catch(() => undefined);
      await rm(mountPoint, { recursive: true, force: true });
    });
    const dataDir = path.join(mountPoint, 'data');
    await mkdir(dataDir);
    const fixture = await seedTenantFixture({ dataDir }, 'Full');
    const { served, baseUrl, headers, client } = await serveSignedIn(t, { DATA_DIR: dataDir }, fixture);
    assert.equal((await client.put('docs', 'a.txt', 'kept')).status, 201);
    assert.equal((await client.backup()).status, 201);
    const backupsBefore = (await client.backups()).json().items.length;

    // Uploads of 512 KiB until one does not fit; a 4 MiB disk holds fewer than 8.
    let full: HttpResponse | undefined;
    for (let n = 0; n < 16 && full === undefined; n++) {
      const answer = await client.put('fill', `f${n}.bin`, Buffer.alloc(512 * 1024, n));
      if (answer.status !== 201) full = answer;
    }
    assert.ok(full, 'the disk filled up');
    assertRefused(full, 507, 'INSUFFICIENT_STORAGE', 'the upload that does not fit');

    // The upload that did not fit left room; another file takes the last byte, so that the few
    // rows of a backup or a logout (appended to SQLite's WAL) do not fit either.
    const filler = await fillUp(path.join(mountPoint, 'filler'));
    // SQLite may still have room in its WAL (a checkpoint lets it write over what it holds): a few
    // more writes can fit, and did in a CI rehearsal. They go on until one does not; that one must
    // change nothing.
    let backupsMade = 0;
    let refusedBackup: HttpResponse | undefined;
    for (let n = 0; n < 20 && refusedBackup === undefined; n++) {
      await nextSecond();
      const answer = await client.backup();
      if (answer.status === 201) backupsMade++;
      else refusedBackup = answer;
    }
    assert.ok(refusedBackup, 'a backup stopped fitting');
    assertRefused(refusedBackup, 507, 'INSUFFICIENT_STORAGE', 'backup');
    let refusedLogout: { answer: HttpResponse; headers: object } | undefined;
    for (let n = 0; n < 20 && refusedLogout === undefined; n++) {
      const other = { ...(await signIn(fixture.ownerWallet, new URL(baseUrl).host)) };
      const answer = await request(baseUrl, '/api/auth/logout', { method: 'POST', headers: other });
      if (answer.status !== 204) refusedLogout = { answer, headers: other };
    }
    assert.ok(refusedLogout, 'a logout stopped fitting');
    assertRefused(refusedLogout.answer, 507, 'INSUFFICIENT_STORAGE', 'logout');

    // Nothing changed: the refused logout's message still signs in, the backups and the file are as they were.
    assert.equal((await request(baseUrl, '/api/auth/test', { headers: refusedLogout.headers })).status, 200, 'the logout was not recorded');
    assert.equal((await request(baseUrl, '/api/auth/test', { headers })).status, 200);
    assert.equal((await client.backups()).json().items.length, backupsBefore + backupsMade);
    const file = await client.get('docs', 'a.txt');
    assert.equal(file.body, 'kept');
    assert.equal(file.headers.etag, `"${sha256('kept')}"`);

    // Room again (the disk made larger: the writes that still fit above may have used what the
    // filler's removal alone would free): the same requests succeed, on the same service.
    await rm(filler);
    await run('mount', ['-o', 'remount,size=16m', mountPoint]);
    assert.equal((await client.backup()).status, 201);
    assert.equal((await request(baseUrl, '/api/auth/logout', { method: 'POST', headers })).status, 204);
    assert.doesNotMatch(served.output(), /"statusCode":500|INTERNAL_ERROR/);
  });
});
