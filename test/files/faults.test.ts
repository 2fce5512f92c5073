import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import type { HttpResponse } from '../helpers/http.ts';
import { clusterVersion, startPostgresIfDown, whileNoOtherTestUsesPostgres } from '../helpers/postgres.ts';
import { createStorage, startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

const run = promisify(execFile);
const RECOVERY_LIMIT_MS = 2000;

interface Outcome {
  startedAt: number;
  endedAt: number;
  what: string;
  status: number | 'network error';
  code?: string;
  /** A wrong answer: bytes other than those stored, a status the operation may not give. */
  wrong?: string;
}

/** Runs `op` in `workers` loops until stopped, recording every answer with its time. */
function drive(workers: number, op: (worker: number, round: number) => Promise<Omit<Outcome, 'startedAt' | 'endedAt'>>) {
  const outcomes: Outcome[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async (_, worker) => {
    for (let round = 0; running; round++) {
      const startedAt = performance.now();
      let result: Omit<Outcome, 'startedAt' | 'endedAt'>;
      try {
        result = await op(worker, round);
      } catch (error) {
        result = { what: 'request', status: 'network error', wrong: String(error) };
      }
      outcomes.push({ ...result, startedAt, endedAt: performance.now() });
      await sleep(5);
    }
  });
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

const codeOf = (response: HttpResponse) => (response.status >= 400 ? (response.json() as { code?: string }).code : undefined);

/**
 * The load of an outage: reads of a file whose bytes are known and writes of a file per worker.
 * Allowed answers: success, or 503 with `unavailable` in the one error format.
 */
function fileLoad(client: FilesClient, stable: Buffer, unavailable: string, lastWritten: Map<number, Buffer>) {
  return async (worker: number, round: number) => {
    if (round % 2 === 0) {
      const response = await client.get('docs', 'stable.bin');
      const wrong = response.status === 200 && !response.bytes.equals(stable) ? 'served other bytes' : undefined;
      return { what: 'GET', status: response.status, code: codeOf(response), wrong: wrong ?? unexpected(response, [200], unavailable) };
    }
    const body = Buffer.from(`worker ${worker} round ${round}`);
    const response = await client.put('docs', `w${worker}.txt`, body);
    if (response.status === 200 || response.status === 201) lastWritten.set(worker, body);
    return { what: 'PUT', status: response.status, code: codeOf(response), wrong: unexpected(response, [200, 201], unavailable) };
  };
}

function unexpected(response: HttpResponse, ok: number[], unavailable: string): string | undefined {
  if (ok.includes(response.status)) return undefined;
  if (response.status === 503 && response.headers['content-type'] === 'application/problem+json' && codeOf(response) === unavailable)
    return undefined;
  return `answered ${response.status}: ${response.body.slice(0, 200)}`;
}

/** After the outage: outcomes are right, and every request begun RECOVERY_LIMIT_MS after `backAt` succeeded. */
function assertOutageSurvived(outcomes: Outcome[], backAt: number, label: string): { failed: number; recoveryMs: number } {
  const wrong = outcomes.filter((o) => o.wrong);
  assert.deepEqual(wrong.map((o) => `${o.what}: ${o.wrong}`).slice(0, 10), [], `${label}: wrong answers`);
  const failed = outcomes.filter((o) => o.status === 503);
  assert.ok(failed.length > 0, `${label}: some requests met the outage`);
  const lastFailure = failed.at(-1)!;
  const recoveryMs = Math.max(0, lastFailure.endedAt - backAt);
  assert.ok(recoveryMs <= RECOVERY_LIMIT_MS, `${label}: requests still failed ${recoveryMs.toFixed(0)} ms after the backend was back`);
  assert.ok(
    outcomes.some((o) => o.startedAt > lastFailure.endedAt && o.status !== 503),
    `${label}: requests succeed again`,
  );
  return { failed: failed.length, recoveryMs };
}

/** Each worker's file holds its last acknowledged write, or a write the outage interrupted — never a mix, and its record matches. */
async function assertWritesConsistent(client: FilesClient, lastWritten: Map<number, Buffer>, label: string): Promise<void> {
  for (const [worker, body] of lastWritten) {
    const response = await client.get('docs', `w${worker}.txt`);
    assert.equal(response.status, 200, `${label}: w${worker}.txt`);
    assert.equal(response.headers.etag, `"${sha256(response.bytes)}"`, `${label}: w${worker}.txt's record matches its bytes`);
    const text = response.bytes.toString();
    assert.match(text, new RegExp(`^worker ${worker} round \\d+$`), `${label}: w${worker}.txt is whole`);
    const round = Number(text.split(' ').at(-1));
    assert.ok(round >= Number(body.toString().split(' ').at(-1)), `${label}: w${worker}.txt lost an acknowledged write`);
  }
}

async function signedClient(svc: TestService, fixture: TenantFixture): Promise<FilesClient> {
  return new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
}

describe('faults under load', () => {
  test('PostgreSQL stopped and started again: 503 SERVICE_UNAVAILABLE meanwhile, full recovery within 2 s, nothing answered wrongly', async (t) => {
    const svc = await startTestService('postgres', { transport: 'socket' });
    t.after(async () => {
      await startPostgresIfDown();
      await svc.close();
    });
    const fixture = await createTenantFixture(svc.service.store, 'Outage');
    const client = await signedClient(svc, fixture);
    const stable = Buffer.from('stable bytes');
    assert.equal((await client.put('docs', 'stable.bin', stable)).status, 201);
    const lastWritten = new Map<number, Buffer>();
    const load = drive(4, fileLoad(client, stable, 'SERVICE_UNAVAILABLE', lastWritten));
    let backAt = 0;
    let downMs = 0;
    try {
      await sleep(300);
      const database = new URL(svc.config.databaseUrl!).pathname.slice(1);
      await whileNoOtherTestUsesPostgres(database, async () => {
        const stoppedAt = performance.now();
        await run('pg_ctlcluster', ['--skip-systemctl-redirect', clusterVersion(), 'main', 'stop', '-m', 'fast']);
        await sleep(1500);
        await startPostgresIfDown();
        backAt = performance.now();
        downMs = backAt - stoppedAt;
      });
      await sleep(RECOVERY_LIMIT_MS + 1000);
    } finally {
      await load.stop();
    }
    // Reaching here is the "no crash" check: the service runs in this process.
    const { failed, recoveryMs } = assertOutageSurvived(load.outcomes, backAt, 'PostgreSQL');
    await assertWritesConsistent(client, lastWritten, 'PostgreSQL');
    assert.equal((await fetch(`${svc.baseUrl}/readyz`)).status, 200);
    t.diagnostic(
      `PostgreSQL outage of ${downMs.toFixed(0)} ms under load: ${load.outcomes.length} requests, ${failed} answered 503 SERVICE_UNAVAILABLE, 0 wrong, 0 crashes; last failure ${recoveryMs.toFixed(0)} ms after the server was back`,
    );
  });

  test('the S3 server stopped and started again: 503 STORAGE_UNAVAILABLE meanwhile, full recovery within 2 s, nothing answered wrongly', async (t) => {
    const storage = await createStorage('postgres+s3');
    const svc = await startTestService('postgres+s3', { storage, transport: 'socket' });
    t.after(async () => {
      await svc.close();
      await storage.drop();
    });
    const s3 = storage.s3!;
    const fixture = await createTenantFixture(svc.service.store, 'S3 outage');
    const client = await signedClient(svc, fixture);
    const stable = Buffer.from('stable bytes on s3');
    assert.equal((await client.put('docs', 'stable.bin', stable)).status, 201);
    const lastWritten = new Map<number, Buffer>();
    const load = drive(4, fileLoad(client, stable, 'STORAGE_UNAVAILABLE', lastWritten));
    let backAt = 0;
    try {
      await sleep(300);
      await s3.stop();
      await sleep(1500);
      await s3.start();
      backAt = performance.now();
      await sleep(RECOVERY_LIMIT_MS + 1000);
    } finally {
      await load.stop();
    }
    await s3.idle();
    const { failed, recoveryMs } = assertOutageSurvived(load.outcomes, backAt, 'S3');
    await assertWritesConsistent(client, lastWritten, 'S3');
    assert.equal((await fetch(`${svc.baseUrl}/readyz`)).status, 200);
    t.diagnostic(
      `S3 outage of 1500 ms under load: ${load.outcomes.length} requests, ${failed} answered 503 STORAGE_UNAVAILABLE, 0 wrong, 0 crashes; last failure ${recoveryMs.toFixed(0)} ms after the server was back`,
    );
  });

  test('a full disk (DATA_DIR on a 6 MiB tmpfs) during uploads, backups and restores: 507, and the live file and every version intact', {
    skip: process.getuid?.() !== 0 ? 'mounting a tmpfs needs root' : false,
  }, async (t) => {
    const mountPoint = await mkdtemp(path.join(os.tmpdir(), 'wa-full-'));
    await run('mount', ['-t', 'tmpfs', '-o', 'size=6m', 'tmpfs', mountPoint]);
    t.after(async () => {
      await run('umount', ['-l', mountPoint]).catch(() => undefined);
      await rm(mountPoint, { recursive: true, force: true });
    });
    const dataDir = path.join(mountPoint, 'data');
    await mkdir(dataDir);
    const svc = await startTestService('sqlite', {
      storage: { dataDir, databaseUrl: undefined, env: {}, s3: undefined, drop: async () => undefined },
      transport: 'socket',
    });
    t.after(() => svc.close());
    const fixture = await createTenantFixture(svc.service.store, 'Full');
    const client = await signedClient(svc, fixture);
    const kept = Buffer.alloc(1024 * 1024, 7);
    assert.equal((await client.put('docs', 'kept.bin', kept)).status, 201);
    await nextSecond();
    const backup = await client.backup();
    assert.equal(backup.status, 201);
    const changed = Buffer.alloc(1024 * 1024, 8);
    assert.equal((await client.put('docs', 'kept.bin', changed)).status, 200);

    // Fill the disk with uploads until one is refused.
    const statuses = new Map<number, number>();
    let filler = 0;
    for (; filler < 50; filler++) {
      const response = await client.put('fill', `f${filler}.bin`, Buffer.alloc(512 * 1024, filler % 250));
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status !== 201) {
        assert.ok([507, 503].includes(response.status), `upload on a full disk answered ${response.status}: ${response.body}`);
        break;
      }
    }
    assert.ok(filler < 50, 'the disk filled up');
    // On the full disk: an upload replacing the live file, a backup and a restore (which must keep the current bytes as a version).
    const refusals: number[] = [];
    for (const response of [
      await client.put('docs', 'kept.bin', Buffer.alloc(1024 * 1024, 9)),
      await (async () => {
        await nextSecond();
        return client.backup();
      })(),
      await client.restore('docs', 'kept.bin', `?backupTimestamp=${backup.json().timestamp}`),
    ]) {
      refusals.push(response.status);
      if (response.status >= 400) {
        assert.ok([507, 503].includes(response.status), `answered ${response.status}: ${response.body}`);
        assert.equal(response.headers['content-type'], 'application/problem+json');
      }
    }
    // Whatever was refused, the live file is whole and its record matches; every version holds its bytes.
    const live = await client.get('docs', 'kept.bin');
    assert.equal(live.status, 200);
    assert.equal(live.headers.etag, `"${sha256(live.bytes)}"`);
    assert.ok(
      [changed, kept].some((bytes) => bytes.equals(live.bytes)),
      'the live file is one of the stored contents, whole',
    );
    const versions = (await client.versions('docs', 'kept.bin')).json().items as { id: string; sha256: string }[];
    for (const version of versions) {
      const response = await client.restore('docs', 'kept.bin', `?versionId=${version.id}`);
      if (response.status === 200) {
        const bytes = (await client.get('docs', 'kept.bin')).bytes;
        assert.equal(sha256(bytes), version.sha256, `version ${version.id} holds its bytes`);
      } else {
        assert.ok(
          [507, 503].includes(response.status),
          `restore of a version on a full disk answered ${response.status}: ${response.body}`,
        );
      }
    }
    // The service is still up and serving.
    assert.equal((await client.get('docs', 'kept.bin')).status, 200);
    t.diagnostic(
      `full disk: ${filler} uploads filled 6 MiB, then upload/backup/restore answered ${refusals.join(', ')}; live file and ${versions.length} versions intact`,
    );
  });
});
