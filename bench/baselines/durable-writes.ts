import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/**
 * The physical bound of small-files: what this disk allows for durable 4 KiB writes, with no
 * service around them. `workers` threads, each a loop of exactly what a blob write needs
 * (src/blobs/atomic-write.ts) for a file laid out as a blob is (src/files/blob-layout.ts:
 * <root>/<2 hex>/<30 hex>, 256 directories): a temp file beside the target, 4 KiB written, fsync,
 * rename, fsync of the directory; a directory's first use also fsyncs its parent, as
 * makeDirectories does. Synchronous system calls on threads of their own: every worker's call is
 * in the kernel at once (the service's go through libuv's pool of 4 threads), so the kernel
 * groups their journal commits as well as it can.
 *
 * `group`: the directory fsyncs of concurrent writes coalesced across the workers, as the service
 * does (src/blobs/directory-syncs.ts): a worker whose rename is not yet covered either starts the
 * directory's next fsync (covering every rename done before it starts) or waits for one to end.
 *
 *   node --import tsx bench/baselines/durable-writes.ts <root> <workers> <seconds> [group]
 * prints one line of JSON: { writes, seconds, writesPerSecond, cpuMs, directoryFsyncs }.
 */

const FILE_BYTES = 4096;
const DIRECTORIES = 256;

interface Job {
  root: string;
  seconds: number;
  group: boolean;
  /** Per directory: renames done (a ticket each), renames covered by an fsync that ended, fsync in flight (0/1). */
  shared: SharedArrayBuffer;
  /** The start signal (one Int32, 1 = go): the clock starts once every thread is up, not while 32 of them start. */
  start: SharedArrayBuffer;
}

if (isMainThread) {
  const [root, workers = '32', seconds = '10', group] = process.argv.slice(2);
  if (!root) throw new Error('usage: durable-writes.ts <root> <workers> <seconds> [group]');
  mkdirSync(root, { recursive: true });
  const shared = new SharedArrayBuffer(DIRECTORIES * 3 * 4);
  const start = new SharedArrayBuffer(4);
  const job: Job = { root: path.resolve(root), seconds: Number(seconds), group: group === 'group', shared, start };
  const ready: Promise<void>[] = [];
  const results = Array.from(
    { length: Number(workers) },
    () =>
      new Promise<{ writes: number; directoryFsyncs: number }>((resolve, reject) => {
        const worker = new Worker(new URL(import.meta.url), { workerData: job });
        ready.push(new Promise((up) => worker.once('message', () => up())));
        // The first message says the thread waits for the start; the second is its count.
        worker.once('message', () => worker.once('message', resolve));
        worker.once('error', reject);
      }),
  );
  await Promise.all(ready);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const go = new Int32Array(start);
  Atomics.store(go, 0, 1);
  Atomics.notify(go, 0);
  const done = await Promise.all(results);
  const elapsed = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const writes = done.reduce((sum, r) => sum + r.writes, 0);
  const directoryFsyncs = done.reduce((sum, r) => sum + r.directoryFsyncs, 0);
  process.stdout.write(
    `${JSON.stringify({ writes, seconds: elapsed, writesPerSecond: writes / elapsed, cpuMs: (cpu.user + cpu.system) / 1000, directoryFsyncs })}\n`,
  );
} else {
  const job = workerData as Job;
  const renamed = new Int32Array(job.shared, 0, DIRECTORIES);
  const covered = new Int32Array(job.shared, DIRECTORIES * 4, DIRECTORIES);
  const busy = new Int32Array(job.shared, DIRECTORIES * 8, DIRECTORIES);
  const bytes = Buffer.alloc(FILE_BYTES, 'u');
  const made = new Set<number>();
  let directoryFsyncs = 0;
  const fsyncPath = (directory: string) => {
    const fd = openSync(directory, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    directoryFsyncs++;
  };
  /** The rename (ticket `ticket` of directory `d`) is durable once an fsync that started after it has ended. */
  const groupedFsync = (d: number, directory: string, ticket: number) => {
    while (Atomics.load(covered, d) < ticket) {
      if (Atomics.compareExchange(busy, d, 0, 1) === 0) {
        // Every rename whose ticket is ≤ upTo was done before this fsync starts.
        const upTo = Atomics.load(renamed, d);
        try {
          fsyncPath(directory);
          if (Atomics.load(covered, d) < upTo) Atomics.store(covered, d, upTo);
        } finally {
          Atomics.store(busy, d, 0);
          Atomics.notify(busy, d);
        }
      } else Atomics.wait(busy, d, 1);
    }
  };
  parentPort!.postMessage('ready');
  Atomics.wait(new Int32Array(job.start), 0, 0);
  const deadline = performance.now() + job.seconds * 1000;
  let writes = 0;
  while (performance.now() < deadline) {
    const name = randomBytes(16).toString('hex');
    const d = Number.parseInt(name.slice(0, 2), 16);
    const directory = path.join(job.root, name.slice(0, 2));
    if (!made.has(d)) {
      if (mkdirSync(directory, { recursive: true }) !== undefined) fsyncPath(job.root);
      made.add(d);
    }
    const temp = path.join(directory, `.wa-tmp-${randomBytes(12).toString('hex')}`);
    const fd = openSync(temp, 'wx');
    try {
      writeSync(fd, bytes);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path.join(directory, name.slice(2)));
    if (job.group) groupedFsync(d, directory, Atomics.add(renamed, d, 1) + 1);
    else fsyncPath(directory);
    writes++;
  }
  parentPort!.postMessage({ writes, directoryFsyncs });
}
