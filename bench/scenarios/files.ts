import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Deployment, Engine } from '../lib/deployment.ts';
import { measure, unexpectedAnswers } from '../lib/load.ts';
import { type BenchContext, median, perSecond, type Row, round, type Scenario } from '../lib/scenario.ts';
import { type RunningServer, rssBytes, writtenBytes } from '../lib/servers.ts';
import { signInHeaders } from '../lib/sign-in.ts';
import { canTraceWrites, traceWrites } from '../lib/write-trace.ts';
import { withService } from './auth.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;

function signedHeaders(deployment: Deployment, server: RunningServer): Promise<Record<string, string>> {
  return signInHeaders(deployment.privateKey, `127.0.0.1:${server.port}`, 'benchfiles000001', 6 * 3600_000);
}

/** The file API of the bench channel over plain fetch. */
class Files {
  constructor(
    private readonly server: RunningServer,
    private readonly channelId: string,
    private readonly headers: Record<string, string>,
  ) {}

  path(folder: string, filename: string): string {
    return `/api/channels/${this.channelId}/folders/${encodeURIComponent(folder)}/files/${encodeURIComponent(filename)}`;
  }

  async put(folder: string, filename: string, body: Buffer | ReadableStream | NodeJS.ReadableStream, size?: number): Promise<void> {
    const response = await fetch(`${this.server.baseUrl}${this.path(folder, filename)}`, {
      method: 'PUT',
      headers: {
        ...this.headers,
        'Content-Type': 'application/octet-stream',
        ...(size !== undefined ? { 'Content-Length': String(size) } : {}),
      },
      body: body as BodyInit,
      duplex: 'half',
    } as RequestInit);
    if (response.status !== 200 && response.status !== 201) throw new Error(`PUT ${filename}: ${response.status} ${await response.text()}`);
  }

  /** `ms` is the request's own time, after the wait for a second of its own. */
  async backup(): Promise<{ timestamp: string; files: number; bytes: number; ms: number }> {
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5)); // one backup per second
    const started = performance.now();
    const response = await fetch(`${this.server.baseUrl}/api/channels/${this.channelId}/backups`, {
      method: 'POST',
      headers: { ...this.headers, 'Content-Type': 'application/json' },
    });
    if (response.status !== 201) throw new Error(`backup: ${response.status} ${await response.text()}`);
    const body = (await response.json()) as { timestamp: string; files: number; bytes: number };
    return { ...body, ms: performance.now() - started };
  }

  async restore(folder: string, filename: string, timestamp: string): Promise<void> {
    const response = await fetch(`${this.server.baseUrl}${this.path(folder, filename)}/restore?backupTimestamp=${timestamp}`, {
      method: 'POST',
      headers: { ...this.headers, 'Content-Type': 'application/json' },
    });
    if (response.status !== 200) throw new Error(`restore: ${response.status} ${await response.text()}`);
    await response.text();
  }
}

/** Samples a process's RSS every 10 ms while `work` runs; returns the peak and what work returned. */
async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; before: number; peak: number }> {
  const before = await rssBytes(pid);
  let peak = before;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, await rssBytes(pid));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    const value = await work();
    return { value, before, peak };
  } finally {
    sampling = false;
    await sampler;
  }
}

/** Restore of a 256 MiB file against `cp` + `sync` of the same bytes on the same disk. */
export async function restoreLarge(context: BenchContext, engine: Engine, sizeMiB = 256): Promise<Row> {
  return withService(context, engine, {}, async (server, deployment) => {
    const files = new Files(server, deployment.channelId, await signedHeaders(deployment, server));
    const source = path.join(deployment.dataDir, 'large-source.bin');
    await run('head', ['-c', String(sizeMiB * MiB), '/dev/urandom'], { encoding: 'buffer', maxBuffer: 2 * sizeMiB * MiB }).then(
      ({ stdout }) => writeFile(source, stdout),
    );
    await files.put('big', 'large.bin', createReadStream(source), sizeMiB * MiB);
    const { timestamp } = await files.backup();
    const restoreMs: number[] = [];
    const cpMs: number[] = [];
    let rssGrowth = 0;
    for (let i = 0; i < context.runs; i++) {
      await files.put('big', 'large.bin', Buffer.from(`changed ${i}`)); // so that each restore has bytes to copy
      await run('sync');
      const started = performance.now();
      const { before, peak } = await peakRss(server.pid, () => files.restore('big', 'large.bin', timestamp));
      restoreMs.push(performance.now() - started);
      rssGrowth = Math.max(rssGrowth, peak - before);

      const copy = path.join(deployment.dataDir, `cp-${i}.bin`);
      await run('sync');
      const cpStarted = performance.now();
      await run('sh', ['-c', `cp "${source}" "${copy}" && sync`]);
      cpMs.push(performance.now() - cpStarted);
      await rm(copy);
    }
    await rm(source);
    const ratio = median(restoreMs) / median(cpMs);
    return {
      scenario: `restore-large (${sizeMiB} MiB)`,
      engine,
      measured: `${Math.round(median(restoreMs))} ms, RSS +${round(rssGrowth / MiB, 1)} MiB`,
      baseline: `cp + sync ${Math.round(median(cpMs))} ms`,
      ratio: round(ratio),
      target: '≤ 1.25 × cp, RSS growth < 64 MiB',
      met: ratio <= 1.25 && rssGrowth < 64 * MiB,
      details: { restoreMs, cpMs, rssGrowthBytes: rssGrowth },
    };
  });
}

/** 50 clients restoring 4 KiB files (each its own, alternating between two backups). */
export async function restoreSmall(context: BenchContext, engine: Engine): Promise<Row> {
  return withService(context, engine, {}, async (server, deployment) => {
    const headers = await signedHeaders(deployment, server);
    const files = new Files(server, deployment.channelId, headers);
    const names = Array.from({ length: 50 }, (_, i) => `small-${i}.bin`);
    for (const name of names) await files.put('small', name, Buffer.alloc(4096, 1));
    const first = await files.backup();
    for (const name of names) await files.put('small', name, Buffer.alloc(4096, 2));
    const second = await files.backup();
    // Each path alternates between the backups, so that every restore replaces the bytes.
    const paths = [first.timestamp, second.timestamp].flatMap((timestamp) =>
      names.map((name) => `${files.path('small', name)}/restore?backupTimestamp=${timestamp}`),
    );
    const measured = await measure(
      () => ({
        url: server.baseUrl,
        method: 'POST',
        paths,
        connections: 50,
        durationSeconds: context.durationSeconds,
        headers: { ...headers, 'Content-Type': 'application/json' },
      }),
      { runs: context.runs, warmupSeconds: context.warmupSeconds },
    );
    for (const result of measured.runs)
      if (unexpectedAnswers(result, [200]) > 0) throw new Error(`restore-small: ${JSON.stringify(result.statusCounts)}`);
    return {
      scenario: 'restore-small (4 KiB, 50 clients)',
      engine,
      measured: `${perSecond(measured.median.requestsPerSecond)}, p99 ${measured.median.latencyMs.p99} ms`,
      details: { measured },
    };
  });
}

/**
 * A channel of 10,000 files (1 GiB) backed up, 10 files changed, backed up again: the second
 * backup's time and the bytes the service wrote meanwhile (/proc/<pid>/io), against the changed
 * bytes and the metadata. Where the metadata went is measured on a third backup, identical in
 * kind (the same 10 files changed again), traced with strace: its writes by file, those to the
 * SQLite files (database and WAL) being the metadata.
 */
export async function backupIncremental(context: BenchContext, engine: Engine, fileCount = 10_000, totalMiB = 1024): Promise<Row> {
  return withService(context, engine, {}, async (server, deployment) => {
    const files = new Files(server, deployment.channelId, await signedHeaders(deployment, server));
    const fileBytes = Math.floor((totalMiB * MiB) / fileCount);
    const content = (i: number, round: number) => Buffer.alloc(fileBytes, (i + round) % 251);
    const names = Array.from({ length: fileCount }, (_, i) => `f${String(i).padStart(5, '0')}.bin`);
    context.log(`backup-incremental: uploading ${fileCount} files of ${fileBytes} bytes`);
    for (let i = 0; i < names.length; i += 16)
      await Promise.all(names.slice(i, i + 16).map((name, j) => files.put('data', name, content(i + j, 0))));
    const full = await files.backup();
    const changed = names.filter((_, i) => i % (fileCount / 10) === 0);
    const changeFiles = async (round: number) => {
      for (const name of changed) await files.put('data', name, content(names.indexOf(name), round));
      await run('sync');
    };
    const changedBytes = changed.length * fileBytes;

    await changeFiles(1);
    const writtenBefore = await writtenBytes(server.pid);
    const incremental = await files.backup();
    const written = (await writtenBytes(server.pid)) - writtenBefore;

    let metadata: number | undefined;
    let traced: Record<string, number> | undefined;
    if (canTraceWrites()) {
      await changeFiles(2);
      const { writes } = await traceWrites(server.pid, () => files.backup());
      traced = Object.fromEntries([...writes.byFile].sort((a, b) => b[1] - a[1]).slice(0, 12));
      metadata = [...writes.byFile]
        .filter(([file]) => file.startsWith(path.join(deployment.dataDir, 'metadata.sqlite')))
        .reduce((sum, [, bytes]) => sum + bytes, 0);
    } else {
      context.log('backup-incremental: strace is not installed (apt-get install strace), so the metadata share is not measured');
    }
    return {
      scenario: `backup-incremental (${fileCount} files, ${changed.length} changed)`,
      engine,
      measured: `${incremental.files} files in ${Math.round(incremental.ms)} ms, ${round(written / MiB, 2)} MiB written`,
      baseline: `changed ${round(changedBytes / MiB, 2)} MiB + metadata ${metadata === undefined ? '(not measured)' : `${round(metadata / MiB, 2)} MiB`}`,
      target: 'written < 2 × changed + metadata',
      ...(metadata === undefined ? {} : { met: written < 2 * changedBytes + metadata }),
      details: { fullBackup: full, incremental, writtenBytes: written, changedBytes, metadataBytes: metadata, tracedWritesByFile: traced },
    };
  });
}

export const fileScenarios: Scenario[] = [
  {
    name: 'restore-large',
    summary: 'restore of a 256 MiB file vs cp + sync of it on the same disk; the RSS growth of the service',
    run: async (c) => [await restoreLarge(c, 'sqlite', c.smoke ? 16 : 256)],
  },
  {
    name: 'restore-small',
    summary: 'restores of 4 KiB files from 50 concurrent clients: requests/s and p99',
    run: async (c) => [await restoreSmall(c, 'sqlite')],
  },
  {
    name: 'backup-incremental',
    summary: 'second backup of a 10,000-file (1 GiB) channel with 10 files changed: time and bytes written',
    run: async (c) => [await backupIncremental(c, 'sqlite', c.smoke ? 500 : 10_000, c.smoke ? 50 : 1024)],
  },
];
