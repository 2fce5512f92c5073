import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Upload } from 'tus-js-client';
import { ROOT } from './checkout.ts';
import { createDeployment } from './deployment.ts';
import { describeMachine } from './machine.ts';
import { processCpuMs } from './process-cpu.ts';
import { rssBytes, startService } from './servers.ts';
import { signInHeaders } from './sign-in.ts';

const MiB = 1024 * 1024;
const FILE_BYTES = 1024 * MiB;
/** MAX_FILE_BYTES is 1 GiB by default: raised, so that the file is well within it. */
const MAX_FILE_BYTES = String(2 * FILE_BYTES);
/** Where the upload is cut: one point in each of these ranges (fractions of the file), drawn at random. */
const CUT_RANGES: [number, number][] = [
  [0.1, 0.3],
  [0.4, 0.6],
  [0.7, 0.9],
];
const SAMPLE_MS = 100;
/** The service's RSS may grow by at most this over its RSS before the upload: far below the file's size (bytes streamed, never held). */
const MAX_GROWTH_BYTES = 128 * MiB;
const toMiB = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

/** VmHWM of a process (its peak RSS since start or since the last reset), from /proc. */
async function hwmBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Resets VmHWM to the current RSS (Linux ≥ 4.0); false where the kernel refuses it (the samples alone then give the peak). */
async function resetPeak(pid: number): Promise<boolean> {
  return writeFile(`/proc/${pid}/clear_refs`, '5').then(
    () => true,
    () => false,
  );
}

/**
 * tus-js-client (one PATCH for the rest of the file each time) cut at each of `cuts` (fractions
 * of the size: the connection aborted mid-PATCH) and started again, which asks the service where
 * the upload stands (HEAD) and sends the rest. Answers the final ETag and each offset the HEADs answered.
 */
function uploadWithCuts(
  endpoint: string,
  headers: Record<string, string>,
  data: Buffer,
  cuts: number[],
): Promise<{ etag: string; cutsMade: number; resumedAt: number[]; patchStatuses: Record<string, number> }> {
  return new Promise((resolve, reject) => {
    const pending = [...cuts];
    const resumedAt: number[] = [];
    const patchStatuses: Record<string, number> = {};
    let cutsMade = 0;
    const upload: Upload = new Upload(data, {
      endpoint,
      headers,
      metadata: { folder: 'soak', filename: 'resumable-1gib.bin' },
      retryDelays: [0, 200, 500, 1000],
      storeFingerprintForResuming: false,
      onProgress(sent, total) {
        const next = pending[0];
        if (next === undefined || sent < next * total) return;
        pending.shift();
        cutsMade++;
        void upload.abort(false).then(() => setTimeout(() => upload.start(), 50));
      },
      onAfterResponse(request, response) {
        if (request.getMethod() === 'HEAD') resumedAt.push(Number(response.getHeader('Upload-Offset')));
        if (request.getMethod() === 'PATCH') patchStatuses[response.getStatus()] = (patchStatuses[response.getStatus()] ?? 0) + 1;
      },
      onSuccess: ({ lastResponse }) => resolve({ etag: lastResponse.getHeader('ETag') ?? '', cutsMade, resumedAt, patchStatuses }),
      onError: reject,
    });
    upload.start();
  });
}

/**
 * The soak's resumable upload: 1 GiB of random bytes through tus to a service on SQLite and disk
 * with MAX_FILE_BYTES raised, cut at three points and resumed each time; the stored file read back
 * and its sha256 checked; the service's RSS sampled every 100 ms (and its VmHWM) meanwhile, which
 * must stay flat: the bytes are streamed to the staging and into the blob store, never held.
 * Writes bench/results/soak-resumable.json and .md; answers whether it passed. With `profileDir`
 * the service runs under --cpu-prof (the profile is written when it stops), and nothing is recorded.
 */
export async function soakResumable(options: { profileDir?: string | undefined; log?: (line: string) => void } = {}): Promise<boolean> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const deployment = await createDeployment('sqlite');
  const server = await startService(
    // A short drain at the end: the profile (with profileDir) is written when the service exits, before the bench's SIGKILL at 10 s.
    { ...deployment.env, MAX_FILE_BYTES, SHUTDOWN_TIMEOUT: '2' },
    path.join(deployment.dataDir, '..', `soak-resumable-${Date.now()}.log`),
    options.profileDir,
  );
  try {
    const domain = `127.0.0.1:${server.port}`;
    const auth = await signInHeaders(deployment.privateKey, domain, 'soaknonce0000002', 3 * 3600_000);
    const data = randomBytes(FILE_BYTES);
    const expected = createHash('sha256').update(data).digest('hex');
    const cuts = CUT_RANGES.map(([low, high]) => low + Math.random() * (high - low));
    log(`resumable: 1 GiB through tus, cut at ${cuts.map((c) => `${Math.round(c * 100)}%`).join(', ')}`);

    const rssBefore = await rssBytes(server.pid);
    const hwmReset = await resetPeak(server.pid);
    const samples: { ms: number; rssMiB: number }[] = [];
    let sampling = true;
    const started = performance.now();
    const sampler = (async () => {
      while (sampling) {
        const rss = await rssBytes(server.pid).catch(() => 0);
        samples.push({ ms: Math.round(performance.now() - started), rssMiB: toMiB(rss) });
        await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
      }
    })();
    const cpuBefore = await processCpuMs(server.pid);
    let outcome: Awaited<ReturnType<typeof uploadWithCuts>>;
    try {
      outcome = await uploadWithCuts(`${server.baseUrl}/api/channels/${deployment.channelId}/uploads`, auth, data, cuts);
    } finally {
      sampling = false;
      await sampler;
    }
    const uploadMs = performance.now() - started;
    const cpuMs = (await processCpuMs(server.pid)) - cpuBefore;
    const hwm = hwmReset ? await hwmBytes(server.pid) : 0;
    const peak = Math.max(hwm, ...samples.map((s) => s.rssMiB * MiB));

    // The stored file, read back whole: its sha256 must be the bytes sent.
    const response = await fetch(`${server.baseUrl}/api/channels/${deployment.channelId}/folders/soak/files/resumable-1gib.bin`, {
      headers: auth,
    });
    if (response.status !== 200 || response.body === null) throw new Error(`resumable: GET ${response.status} ${await response.text()}`);
    const hash = createHash('sha256');
    let storedBytes = 0;
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      hash.update(chunk);
      storedBytes += chunk.length;
    }
    const stored = hash.digest('hex');
    const staging = await readdir(path.join(deployment.dataDir, 'uploads')).catch(() => []);

    const growth = peak - rssBefore;
    // Flat, not rising: the peak of the upload's second half against that of its first (a held body would climb to the end).
    const half = Math.floor(samples.length / 2);
    const halfPeak = (part: { rssMiB: number }[]) => Math.max(0, ...part.map((s) => s.rssMiB));
    const halves = { first: halfPeak(samples.slice(0, half)), second: halfPeak(samples.slice(half)) };
    const problems = [
      ...(stored === expected ? [] : [`stored sha256 ${stored}, sent ${expected}`]),
      ...(storedBytes === FILE_BYTES ? [] : [`stored ${storedBytes} bytes, sent ${FILE_BYTES}`]),
      ...(outcome.etag === `"${expected}"` ? [] : [`the last PATCH answered ETag ${outcome.etag}`]),
      ...(outcome.cutsMade === cuts.length ? [] : [`${outcome.cutsMade} cuts made of ${cuts.length}`]),
      ...(outcome.resumedAt.some((offset) => offset > 0 && offset < FILE_BYTES)
        ? []
        : [`never resumed midway: HEADs at ${outcome.resumedAt.join(', ')}`]),
      ...(growth <= MAX_GROWTH_BYTES ? [] : [`RSS grew by ${toMiB(growth)} MiB (more than ${toMiB(MAX_GROWTH_BYTES)})`]),
      ...(staging.length === 0 ? [] : [`${staging.length} file(s) left in DATA_DIR/uploads`]),
    ];
    const verdict = problems.length === 0 ? 'stored exactly, RSS flat' : `CHECK: ${problems.join('; ')}`;
    const report = {
      machine: describeMachine(),
      fileBytes: FILE_BYTES,
      maxFileBytes: Number(MAX_FILE_BYTES),
      cuts,
      cutsMade: outcome.cutsMade,
      resumedAtOffsets: outcome.resumedAt,
      patchStatuses: outcome.patchStatuses,
      sha256: { sent: expected, stored },
      uploadMs: Math.round(uploadMs),
      serverCpuMs: cpuMs,
      serverCpuMsPerMiB: Math.round((cpuMs / (FILE_BYTES / MiB)) * 100) / 100,
      rssMiB: {
        before: toMiB(rssBefore),
        peak: toMiB(peak),
        growth: toMiB(growth),
        vmHwm: hwmReset ? toMiB(hwm) : null,
        firstHalfPeak: halves.first,
        secondHalfPeak: halves.second,
      },
      sampleMs: SAMPLE_MS,
      samples,
      stagingLeft: staging.length,
      verdict,
    };
    const directory = path.join(ROOT, 'bench/results');
    if (options.profileDir === undefined) {
      await mkdir(directory, { recursive: true });
      await writeFile(path.join(directory, 'soak-resumable.json'), `${JSON.stringify(report, null, 2)}\n`);
    }
    const perSecond = samples.filter((_, i) => i % Math.round(1000 / SAMPLE_MS) === 0).map((s) => s.rssMiB);
    const markdown = [
      '# Soak: a 1 GiB resumable upload, cut three times',
      '',
      `Verdict: **${verdict}**. 1 GiB of random bytes through tus-js-client (MAX_FILE_BYTES ${toMiB(Number(MAX_FILE_BYTES))} MiB), ` +
        `cut at ${cuts.map((c) => `${Math.round(c * 100)}%`).join(', ')} of the bytes sent; the service answered HEAD at ` +
        `${outcome.resumedAt.map((o) => `${toMiB(o)} MiB`).join(', ')} (PATCH answers: ${Object.entries(outcome.patchStatuses)
          .map(([status, n]) => `${n} × ${status}`)
          .join(', ')}) ` +
        `and took the rest from there; ${Math.round(uploadMs / 100) / 10} s in all, ` +
        `${report.serverCpuMsPerMiB} ms of the service's CPU per MiB. The stored file's sha256 is the bytes sent.`,
      '',
      `Service RSS: ${toMiB(rssBefore)} MiB before, peak ${toMiB(peak)} MiB during the upload (+${toMiB(growth)} MiB; VmHWM ${hwmReset ? `${toMiB(hwm)} MiB` : 'not readable'}); ` +
        `the highest sample of the upload's first half ${halves.first} MiB, of its second half ${halves.second} MiB.`,
      '',
      `RSS every second (MiB): ${perSecond.join(', ')}`,
      '',
      `Machine: ${report.machine.cpuModel} × ${report.machine.cpuCount}, Node ${report.machine.node}; run ${report.machine.date.slice(0, 16).replace('T', ' ')} UTC.`,
      '',
    ].join('\n');
    if (options.profileDir === undefined) await writeFile(path.join(directory, 'soak-resumable.md'), markdown);
    else log(`resumable: under the profiler (${options.profileDir}), nothing recorded`);
    process.stdout.write(markdown);
    return problems.length === 0;
  } finally {
    const stopping = performance.now();
    await server.stop();
    log(`resumable: the service stopped in ${Math.round(performance.now() - stopping)} ms`);
    await deployment.remove();
  }
}
