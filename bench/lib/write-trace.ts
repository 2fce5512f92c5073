import { spawn, spawnSync } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Bytes a process wrote, by the file they went to, while `work` ran. */
export interface WriteBreakdown {
  byFile: Map<string, number>;
  total: number;
}

export function canTraceWrites(): boolean {
  return spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;
}

/**
 * Attaches strace to a running process (all its threads) for the duration of `work` and sums the
 * bytes of every successful write call by the path of its descriptor. strace slows the traced
 * calls down, so timings must come from an untraced run.
 */
export async function traceWrites<T>(pid: number, work: () => Promise<T>): Promise<{ value: T; writes: WriteBreakdown }> {
  const output = path.join(os.tmpdir(), `wa-bench-strace-${pid}-${Date.now()}.txt`);
  const tracer = spawn(
    'strace',
    ['-f', '-y', '-qq', '-e', 'trace=write,pwrite64,writev,pwritev,pwritev2', '-o', output, '-p', String(pid)],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => tracer.on('close', () => resolve()));
  // strace says nothing when it has attached; a moment's wait covers it.
  await new Promise((resolve) => setTimeout(resolve, 500));
  try {
    const value = await work();
    await new Promise((resolve) => setTimeout(resolve, 200));
    tracer.kill('SIGINT');
    await exited;
    return { value, writes: parseTrace(await readFile(output, 'utf8')) };
  } finally {
    tracer.kill('SIGKILL');
    await rm(output, { force: true });
  }
}

/** `12345 pwrite64(24</data/metadata.sqlite-wal>, "..."..., 4096, 8192) = 4096` → path, bytes. */
function parseTrace(text: string): WriteBreakdown {
  const byFile = new Map<string, number>();
  let total = 0;
  // An interrupted call is split over two lines ("<unfinished ...>" / "<... resumed>"); the
  // descriptor is on the first and the result on the second.
  const pending = new Map<string, string>();
  for (const line of text.split('\n')) {
    const started = /^(\d+)\s+\w+\(\d+<([^>]*)>.*<unfinished \.\.\.>$/.exec(line);
    if (started) {
      pending.set(started[1]!, started[2]!);
      continue;
    }
    const resumed = /^(\d+)\s+<\.\.\. \w+ resumed>.*\)\s+=\s+(\d+)/.exec(line);
    const whole = /^(\d+)\s+\w+\(\d+<([^>]*)>.*\)\s+=\s+(\d+)/.exec(line);
    let file: string | undefined;
    let bytes = 0;
    if (resumed) {
      file = pending.get(resumed[1]!);
      pending.delete(resumed[1]!);
      bytes = Number(resumed[2]);
    } else if (whole) {
      file = whole[2]!;
      bytes = Number(whole[3]);
    }
    if (file === undefined || bytes === 0) continue;
    byFile.set(file, (byFile.get(file) ?? 0) + bytes);
    total += bytes;
  }
  return { byFile, total };
}
