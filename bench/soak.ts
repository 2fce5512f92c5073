import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib/checkout.ts';
import { createDeployment } from './lib/deployment.ts';
import { runLoad } from './lib/load.ts';
import type { LoadPlan } from './lib/load-plan.ts';
import { describeMachine } from './lib/machine.ts';
import { rssBytes, startService } from './lib/servers.ts';
import { signInHeaders } from './lib/sign-in.ts';
import { soakResumable } from './lib/soak-resumable.ts';
import { soakTests } from './lib/soak-tests.ts';

/**
 * `npm run soak`: first the test files whose heaviest loops `npm test` runs at a CI size, at their
 * full size (bench/lib/soak-tests.ts; `--only tests` runs only these), then a 1 GiB resumable upload
 * cut three times, its service's RSS watched (bench/lib/soak-resumable.ts; `--only resumable`), then
 * (`--only load` runs only this) mixed load for 10 minutes (sign-ins from a pre-signed pool, cached sign-ins, uploads,
 * downloads, restores and a backup a minute) against one service, its RSS sampled every 10 s. The report (bench/results/soak.json and .md) shows the samples, the least-squares RSS
 * trend over the second half (after warm-up), and every answer that was not the expected one.
 * Not part of `npm test`.
 */
const { values } = parseArgs({
  // --profile dir: the resumable part's service under --cpu-prof, its report not recorded.
  options: { minutes: { type: 'string', default: '10' }, only: { type: 'string' }, profile: { type: 'string' } },
});
const PARTS = ['tests', 'resumable', 'load'];
if (values.only !== undefined && !PARTS.includes(values.only)) throw new Error(`--only takes one of ${PARTS.join(', ')}`);
const runs = (part: string) => values.only === undefined || values.only === part;
if (runs('tests') && !(await soakTests())) process.exitCode = 1;
if (runs('resumable') && !(await soakResumable({ profileDir: values.profile && path.resolve(values.profile) }))) process.exitCode = 1;
if (!runs('load')) process.exit();
const minutes = Number(values.minutes);
const SAMPLE_SECONDS = 10;
const MiB = 1024 * 1024;
/** Bytes as MiB with one decimal. */
const toMiB = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;

const deployment = await createDeployment('sqlite');
const server = await startService(deployment.env, path.join(deployment.dataDir, '..', `soak-${Date.now()}.log`));
const domain = `127.0.0.1:${server.port}`;
const auth = await signInHeaders(deployment.privateKey, domain, 'soaknonce0000001', (minutes + 60) * 60_000);
const files = `/api/channels/${deployment.channelId}/folders/soak/files`;

// Files to download and restore, and a first backup to restore from.
for (let i = 0; i < 20; i++) {
  const response = await fetch(`${server.baseUrl}${files}/f${i}.bin`, {
    method: 'PUT',
    headers: { ...auth, 'Content-Type': 'application/octet-stream' },
    body: Buffer.alloc(16 * 1024, i),
  });
  if (response.status !== 201) throw new Error(`seeding: ${response.status} ${await response.text()}`);
}
const firstBackup = await backup();

const seconds = minutes * 60;
const plans: { name: string; expected: number[]; plan: LoadPlan }[] = [
  {
    name: 'auth (cached)',
    expected: [200],
    plan: {
      url: server.baseUrl,
      method: 'GET',
      paths: ['/api/auth/test'],
      connections: 4,
      durationSeconds: seconds,
      overallRate: 300,
      headers: auth,
    },
  },
  {
    name: 'auth (new sign-ins)',
    expected: [200],
    plan: {
      url: server.baseUrl,
      method: 'GET',
      paths: ['/api/auth/test'],
      connections: 2,
      durationSeconds: seconds,
      overallRate: 50,
      siwe: { privateKey: deployment.privateKey, domain, size: Math.ceil(50 * seconds * 1.2) },
    },
  },
  {
    name: 'downloads',
    expected: [200],
    plan: {
      url: server.baseUrl,
      method: 'GET',
      paths: Array.from({ length: 20 }, (_, i) => `${files}/f${i}.bin`),
      connections: 4,
      durationSeconds: seconds,
      overallRate: 200,
      headers: auth,
    },
  },
  {
    name: 'uploads',
    expected: [200, 201],
    plan: {
      url: server.baseUrl,
      method: 'PUT',
      paths: Array.from({ length: 20 }, (_, i) => `${files}/u${i}.bin`),
      connections: 2,
      durationSeconds: seconds,
      overallRate: 20,
      headers: { ...auth, 'Content-Type': 'text/plain' },
      body: 'soak '.repeat(800),
    },
  },
  {
    name: 'restores',
    expected: [200],
    plan: {
      url: server.baseUrl,
      method: 'POST',
      paths: Array.from({ length: 20 }, (_, i) => `${files}/f${i}.bin/restore?backupTimestamp=${firstBackup}`),
      connections: 2,
      durationSeconds: seconds,
      overallRate: 20,
      headers: { ...auth, 'Content-Type': 'application/json' },
    },
  },
];

interface Sample {
  second: number;
  rssMiB: number;
  /** The service's JavaScript heap in use and its memory outside the heap (Buffers, SQLite is not in it), from /metrics. */
  heapUsedMiB: number;
  externalMiB: number;
}

async function processMemory(): Promise<{ heapUsedMiB: number; externalMiB: number }> {
  const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
  const gauge = (name: string) => toMiB(Number(new RegExp(`^wallet_admin_${name} (\\S+)$`, 'm').exec(text)?.[1]));
  return { heapUsedMiB: gauge('nodejs_heap_size_used_bytes'), externalMiB: gauge('nodejs_external_memory_bytes') };
}

const samples: Sample[] = [];
const started = Date.now();
const backups: number[] = [];
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    const sample = {
      second: Math.round((Date.now() - started) / 1000),
      rssMiB: toMiB(await rssBytes(server.pid)),
      ...(await processMemory()),
    };
    samples.push(sample);
    process.stderr.write(
      `${sample.second} s: RSS ${sample.rssMiB} MiB, heap used ${sample.heapUsedMiB} MiB, external ${sample.externalMiB} MiB\n`,
    );
    if (samples.length % 6 === 0)
      backups.push(
        await backup().then(
          () => 201,
          () => 0,
        ),
      );
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_SECONDS * 1000));
  }
})();
// All loads at once; reported in the order planned, not the order they finished.
const results = await Promise.all(plans.map(async ({ name, expected, plan }) => ({ name, expected, result: await runLoad(plan) })));
sampling = false;
await sampler;
await server.stop();
await deployment.remove();

/** Least squares over the second half (after warm-up): MiB per minute. */
function trendPerMinute(key: 'rssMiB' | 'heapUsedMiB'): number {
  const half = samples.filter((s) => s.second >= (minutes * 60) / 2);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const mx = mean(half.map((s) => s.second));
  const my = mean(half.map((s) => s[key]));
  const slope = half.reduce((sum, s) => sum + (s.second - mx) * (s[key] - my), 0) / half.reduce((sum, s) => sum + (s.second - mx) ** 2, 0);
  return slope * 60;
}
const perMinute = trendPerMinute('rssMiB');
const heapPerMinute = trendPerMinute('heapUsedMiB');
const unexpected = results.map(({ name, expected, result }) => {
  const wrong =
    Object.entries(result.statusCounts)
      .filter(([code]) => !expected.includes(Number(code)))
      .reduce((sum, [, n]) => sum + n, 0) +
    result.errors +
    result.timeouts;
  return { name, requests: result.requests, wrong, statusCounts: result.statusCounts, p99: result.latencyMs.p99 };
});
const failedBackups = backups.filter((b) => b !== 201).length;
const totalWrong = unexpected.reduce((sum, u) => sum + u.wrong, 0) + failedBackups;
const first = samples[0]!.rssMiB;
const peak = Math.max(...samples.map((s) => s.rssMiB));
const last = samples.at(-1)!.rssMiB;
const verdict =
  totalWrong === 0 && perMinute < 1
    ? 'no growth trend, no errors'
    : `CHECK: trend ${perMinute.toFixed(2)} MiB/min, ${totalWrong} unexpected answers`;

const report = {
  machine: describeMachine(),
  minutes,
  samples,
  rssMiB: { first, peak, last, trendMiBPerMinuteSecondHalf: Math.round(perMinute * 1000) / 1000 },
  heapUsedTrendMiBPerMinuteSecondHalf: Math.round(heapPerMinute * 1000) / 1000,
  load: unexpected,
  backups: backups.length,
  verdict,
};
const directory = path.join(ROOT, 'bench/results');
await mkdir(directory, { recursive: true });
await writeFile(path.join(directory, 'soak.json'), `${JSON.stringify(report, null, 2)}\n`);
const markdown = [
  `# Soak: ${minutes} minute${minutes === 1 ? '' : 's'} of mixed load`,
  '',
  `Verdict: **${verdict}**. RSS ${first} MiB at the start, peak ${peak} MiB, ${last} MiB at the end; trend over the second half ${perMinute.toFixed(3)} MiB/min (JavaScript heap in use: ${heapPerMinute.toFixed(3)} MiB/min).`,
  '',
  '| Load | Requests | Unexpected | p99 ms | Statuses |',
  '|---|---|---|---|---|',
  ...unexpected.map((u) => `| ${u.name} | ${u.requests} | ${u.wrong} | ${u.p99} | ${JSON.stringify(u.statusCounts)} |`),
  `| backups (one a minute) | ${backups.length} | ${failedBackups} |  |  |`,
  '',
  `RSS every ${SAMPLE_SECONDS} s (MiB): ${samples.map((s) => s.rssMiB).join(', ')}`,
  '',
  `JavaScript heap in use at the same instants (MiB): ${samples.map((s) => s.heapUsedMiB).join(', ')}`,
  '',
  `Machine: ${report.machine.cpuModel} × ${report.machine.cpuCount}, Node ${report.machine.node}; run ${report.machine.date.slice(0, 16).replace('T', ' ')} UTC.`,
  '',
].join('\n');
await writeFile(path.join(directory, 'soak.md'), markdown);
process.stdout.write(markdown);
if (totalWrong > 0) process.exitCode = 1;

async function backup(): Promise<string> {
  await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
  const response = await fetch(`${server.baseUrl}/api/channels/${deployment.channelId}/backups`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
  });
  if (response.status !== 201) throw new Error(`backup: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { timestamp: string }).timestamp;
}
