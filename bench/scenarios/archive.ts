import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import yauzl from 'yauzl';
import { Files, signedHeaders } from '../lib/file-api.ts';
import { processCpuMs, reapedChildrenCpuMs } from '../lib/process-cpu.ts';
import { type BenchContext, median, type Row, round, type Scenario } from '../lib/scenario.ts';
import { withService } from '../lib/served.ts';
import { type RunningServer, rssBytes } from '../lib/servers.ts';

const run = promisify(execFile);
const MiB = 1024 * 1024;
/** Throughput is given in MB/s, as issue 38 asks: 1 MB = 1,000,000 bytes. */
const MB = 1_000_000;
const FOLDER = 'archive';
/** Random bytes, so that nothing would compress (neither side compresses: the service stores, zip runs with -0). */
const FILE_BYTES = MiB;
const FILES = 200;
const SMOKE_FILES = 8;
/** PUTs in flight while the folder is filled (set-up, not measured). */
const UPLOAD_PARALLEL = 8;
/** How often a measured process's memory is read. */
const SAMPLE_MS = 10;
/** Pairs (one download, one zip) at the least, whatever --runs says outside a smoke run. */
const MIN_PAIRS = 3;
/** A pause between two measured passes, so that the service's 'archive' audit entry and hold release land between them. */
const SETTLE_MS = 250;
/** The baseline, run in the temporary directory that holds FOLDER: a stored ZIP of the same files, written to stdout. */
const ZIP_ARGS = ['-0', '-q', '-r', '-', FOLDER];

const fileName = (i: number) => `f${String(i).padStart(4, '0')}.bin`;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One measured archive: the service's download or a zip run. */
interface Pass {
  side: 'service' | 'zip';
  ms: number;
  /** The archive's bytes, as read by the bench (the HTTP body, zip's stdout). */
  bytes: number;
  mbPerSecond: number;
  /** The process's RSS right before (the service's; 0 for zip, which is not running yet). */
  rssBeforeBytes: number;
  /** The highest of the VmRSS samples and of VmHWM (the kernel's peak, reset before each service pass). */
  peakRssBytes: number;
  rssSamples: number;
  /** The process's CPU time over the pass (the service's from /proc/<pid>/stat; zip's whole, from its reaped children's times). */
  cpuMs: number;
  cpuMsPerMiB: number;
}

interface Memory {
  rss: number;
  hwm: number;
}

/** VmRSS and VmHWM of a process; undefined once it has exited (a zombie has no Vm lines, a reaped process no entry). */
async function memoryOf(pid: number): Promise<Memory | undefined> {
  let status: string;
  try {
    status = await readFile(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  };
  const rss = kib('VmRSS');
  const hwm = kib('VmHWM');
  return rss === undefined || hwm === undefined ? undefined : { rss, hwm };
}

/**
 * Resets the process's VmHWM to its current RSS (`5` to /proc/<pid>/clear_refs, Linux ≥ 4.0), so
 * that its next reading is the peak since: a peak between two samples is not missed. False where
 * the kernel refuses it; the samples alone then give the peak.
 */
async function resetPeak(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Reads a process's memory every SAMPLE_MS until stopped: the highest VmRSS or VmHWM seen, and the samples taken. */
function watchMemory(pid: number): { stop(): Promise<{ peak: number; samples: number }> } {
  let peak = 0;
  let samples = 0;
  let running = true;
  const take = async () => {
    const memory = await memoryOf(pid);
    if (memory === undefined) return;
    peak = Math.max(peak, memory.rss, memory.hwm);
    samples++;
  };
  const loop = (async () => {
    while (running) {
      await take();
      await sleep(SAMPLE_MS);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await take(); // the service's VmHWM after the pass: its exact peak (zip has exited by now)
      return { peak, samples };
    },
  };
}

/** Reads a stream to its end, discarding it: the same consumer for the HTTP body and for zip's stdout. */
function drain(stream: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let bytes = 0;
    stream.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    stream.on('end', () => resolve(bytes));
    stream.on('error', reject);
  });
}

/** GET of `urlPath` on the service with the signed headers: the 200 answer, whose body is left to read; any other status fails. */
function get(server: RunningServer, urlPath: string, headers: Record<string, string>): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: '127.0.0.1', port: server.port, path: urlPath, headers }, (response) => {
      if (response.statusCode === 200 && response.headers['content-type'] === 'application/zip') return resolve(response);
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () =>
        reject(new Error(`GET ${urlPath}: ${response.statusCode} ${response.headers['content-type']} ${text.slice(0, 500)}`)),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

const contentLength = (response: http.IncomingMessage) => Number(response.headers['content-length']);
const passFigures = (pass: Omit<Pass, 'mbPerSecond' | 'cpuMsPerMiB'>): Pass => ({
  ...pass,
  mbPerSecond: pass.bytes / MB / (pass.ms / 1000),
  cpuMsPerMiB: pass.cpuMs / (pass.bytes / MiB),
});

/** One download of the folder's archive, read to its end and discarded: its time, the service's peak RSS and CPU time meanwhile. */
async function servicePass(server: RunningServer, urlPath: string, headers: Record<string, string>): Promise<Pass> {
  const rssBeforeBytes = await rssBytes(server.pid);
  await resetPeak(server.pid);
  const watch = watchMemory(server.pid);
  let memory: { peak: number; samples: number } | undefined;
  try {
    const cpuBefore = await processCpuMs(server.pid);
    const started = performance.now();
    const response = await get(server, urlPath, headers);
    const bytes = await drain(response);
    const ms = performance.now() - started;
    const cpuMs = (await processCpuMs(server.pid)) - cpuBefore;
    memory = await watch.stop();
    if (bytes !== contentLength(response))
      throw new Error(`archive: ${bytes} bytes read, Content-Length ${response.headers['content-length']}`);
    return passFigures({ side: 'service', ms, bytes, rssBeforeBytes, peakRssBytes: memory.peak, rssSamples: memory.samples, cpuMs });
  } finally {
    if (memory === undefined) await watch.stop();
  }
}

/** One `zip -0 -q -r - FOLDER` in `root`, its stdout read to its end and discarded: its time, peak RSS and CPU time. */
async function zipPass(root: string): Promise<Pass> {
  const childrenCpuBefore = await reapedChildrenCpuMs(process.pid);
  const started = performance.now();
  const child = spawn('zip', ZIP_ARGS, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (child.pid === undefined) throw new Error(`zip did not start: ${await exited.catch((error: unknown) => String(error))}`);
  const watch = watchMemory(child.pid);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let memory: { peak: number; samples: number } | undefined;
  let ended: { bytes: number; code: number | null; ms: number };
  try {
    const [bytes, code] = await Promise.all([drain(child.stdout), exited]);
    ended = { bytes, code, ms: performance.now() - started };
  } finally {
    memory = await watch.stop(); // however the run ends
  }
  const { bytes, code, ms } = ended;
  const cpuMs = (await reapedChildrenCpuMs(process.pid)) - childrenCpuBefore;
  if (code !== 0) throw new Error(`zip ${ZIP_ARGS.join(' ')} exited with ${code}: ${stderr.slice(0, 500)}`);
  return passFigures({ side: 'zip', ms, bytes, rssBeforeBytes: 0, peakRssBytes: memory.peak, rssSamples: memory.samples, cpuMs });
}

/** Every entry of the ZIP at `file` must be one of `digests` (name → sha256) with those bytes, and every one of them must be there. */
async function verifyArchive(file: string, digests: Map<string, string>): Promise<void> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, strictFileNames: true }, (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  const seen = new Set<string>();
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', resolve);
    zip.on('entry', (entry: yauzl.Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const hash = createHash('sha256');
        stream.on('data', (chunk: Buffer) => hash.update(chunk));
        stream.on('error', reject);
        stream.on('end', () => {
          if (hash.digest('hex') !== digests.get(entry.fileName))
            return reject(new Error(`archive: the entry ${entry.fileName} is not one of the uploaded files' bytes`));
          seen.add(entry.fileName);
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  if (seen.size !== digests.size) throw new Error(`archive: ${seen.size} entries, ${digests.size} files uploaded`);
}

async function zipAvailable(): Promise<void> {
  try {
    await run('zip', ['-v']);
  } catch (error) {
    throw new Error(`archive: the baseline needs Info-ZIP's zip on PATH (Debian: apt-get install zip): ${String(error).slice(0, 200)}`);
  }
}

const mbps = (value: number) => `${Math.round(value).toLocaleString('en-US')} MB/s`;
const mib = (bytes: number) => `${round(bytes / MiB, 1)} MiB`;

/**
 * `count` files of 1 MiB of random bytes uploaded into one folder, and the same bytes written to
 * a temporary directory on the same disk; then, in pairs whose order alternates (service, zip,
 * zip, service, service, zip, …) after a discarded warm-up of each: the folder's archive
 * downloaded over HTTP and read to its end, against `zip -0 -q -r -` of the directory read to its
 * end. Before any measurement one download is checked entry by entry (sha256) against the
 * uploaded bytes, and the channel's archive must answer 200 with its exact length.
 */
async function archiveThroughput(context: BenchContext, count: number, pairCount: number): Promise<Row> {
  await zipAvailable();
  return withService(context, 'sqlite', {}, async (server, deployment) => {
    const headers = await signedHeaders(deployment, server);
    const files = new Files(server, deployment.channelId, headers);
    const disk = await mkdtemp(path.join(os.tmpdir(), 'wa-bench-zip-'));
    try {
      await mkdir(path.join(disk, FOLDER));
      const digests = new Map<string, string>();
      const filling = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: UPLOAD_PARALLEL }, async () => {
          while (next < count) {
            const name = fileName(next++);
            const bytes = randomBytes(FILE_BYTES);
            digests.set(`${FOLDER}/${name}`, sha256(bytes));
            await writeFile(path.join(disk, FOLDER, name), bytes);
            await files.put(FOLDER, name, bytes);
          }
        }),
      );
      await run('sync'); // neither side's runs pay for the other's writeback
      context.log(
        `archive: ${count} files of ${mib(FILE_BYTES)} uploaded and written to ${disk} in ${Math.round(performance.now() - filling)} ms`,
      );

      const folderPath = `/api/channels/${deployment.channelId}/folders/${FOLDER}/archive`;
      const saved = path.join(disk, 'check.zip'); // beside FOLDER: not in zip's archive
      const checked = await get(server, folderPath, headers);
      await pipeline(checked, createWriteStream(saved));
      await verifyArchive(saved, digests);
      await rm(saved);
      const channelAnswer = await get(server, `/api/channels/${deployment.channelId}/archive`, headers);
      const channelBytes = await drain(channelAnswer);
      if (channelBytes !== contentLength(channelAnswer))
        throw new Error(`archive: the channel's archive sent ${channelBytes} bytes of its Content-Length ${contentLength(channelAnswer)}`);

      const pass = async (side: Pass['side']) => {
        await sleep(SETTLE_MS);
        return side === 'service' ? servicePass(server, folderPath, headers) : zipPass(disk);
      };
      const warmup = [await pass('service'), await pass('zip')];
      const pairs: { service: Pass; zip: Pass; ratio: number }[] = [];
      for (let i = 0; i < pairCount; i++) {
        const order: Pass['side'][] = i % 2 === 0 ? ['service', 'zip'] : ['zip', 'service'];
        const done: Partial<Record<Pass['side'], Pass>> = {};
        for (const side of order) done[side] = await pass(side);
        const { service, zip } = done as Record<Pass['side'], Pass>;
        pairs.push({ service, zip, ratio: service.mbPerSecond / zip.mbPerSecond });
        context.log(
          `archive pair ${i + 1} (${order.join(', ')}): service ${mbps(service.mbPerSecond)}, peak RSS ${mib(service.peakRssBytes)}; ` +
            `zip -0 ${mbps(zip.mbPerSecond)}, peak RSS ${mib(zip.peakRssBytes)}; ratio ${round(service.mbPerSecond / zip.mbPerSecond)}`,
        );
      }

      const services = pairs.map((p) => p.service);
      const zips = pairs.map((p) => p.zip);
      const ratios = pairs.map((p) => p.ratio);
      const of = (passes: Pass[], figure: (p: Pass) => number) => median(passes.map(figure));
      const servicePeak = Math.max(...services.map((p) => p.peakRssBytes));
      const serviceBefore = Math.min(...services.map((p) => p.rssBeforeBytes));
      const serviceGrowth = Math.max(...services.map((p) => p.peakRssBytes - p.rssBeforeBytes));
      const zipPeak = Math.max(...zips.map((p) => p.peakRssBytes));
      const serviceCpu = of(services, (p) => p.cpuMsPerMiB);
      const zipCpu = of(zips, (p) => p.cpuMsPerMiB);
      const fileBytes = count * FILE_BYTES;
      return {
        scenario: `archive (${count} files of 1 MiB, ${round(fileBytes / MB)} MB)`,
        engine: 'sqlite',
        measured:
          `${mbps(of(services, (p) => p.mbPerSecond))} (${Math.round(of(services, (p) => p.ms))} ms), ` +
          `peak RSS ${mib(servicePeak)} (+${mib(serviceGrowth)} over its RSS before), ${round(serviceCpu, 2)} ms CPU/MiB; ` +
          `ratio per pair ${round(Math.min(...ratios))}–${round(Math.max(...ratios))}`,
        baseline: `zip -0: ${mbps(of(zips, (p) => p.mbPerSecond))} (${Math.round(of(zips, (p) => p.ms))} ms), peak RSS ${mib(zipPeak)}, ${round(zipCpu, 2)} ms CPU/MiB`,
        ratio: round(median(ratios)),
        cpuRatio: round(serviceCpu / zipCpu),
        details: {
          files: count,
          fileBytes: FILE_BYTES,
          archiveBytes: services[0]!.bytes,
          zipArchiveBytes: zips[0]!.bytes,
          zipCommand: `zip ${ZIP_ARGS.join(' ')}`,
          mb: MB,
          sampleMs: SAMPLE_MS,
          serviceRssBeforeBytes: serviceBefore,
          servicePeakRssBytes: servicePeak,
          serviceRssGrowthBytes: serviceGrowth,
          zipPeakRssBytes: zipPeak,
          ratios,
          medianRatio: median(ratios),
          warmup,
          pairs,
        },
      };
    } finally {
      await rm(disk, { recursive: true, force: true });
    }
  });
}

export const archiveScenario: Scenario = {
  name: 'archive',
  summary:
    "a folder's ZIP archive (200 files of 1 MiB of random bytes) downloaded over HTTP vs zip -0 of the same files on disk, in alternating pairs: MB/s, peak RSS of both, CPU per MiB",
  run: async (c) => [await archiveThroughput(c, c.smoke ? SMOKE_FILES : FILES, c.smoke ? 1 : Math.max(MIN_PAIRS, c.runs))],
};
