import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { type Checkout, cliOf, processEnv, ROOT } from './checkout.ts';

export interface RunningServer {
  baseUrl: string;
  port: number;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Servers started and not yet exited: stopped with the bench, however it ends. */
const running = new Set<ChildProcess>();
let stoppedWithTheBench = false;

/**
 * A bench stopped by a signal (kill, a CI timeout) would leave its servers running, each holding a
 * port and a core, and skewing the next run's figures; Ctrl-C reaches them with the terminal's
 * process group, a signal to the bench alone does not.
 */
function stopServersWithTheBench(): void {
  if (stoppedWithTheBench) return;
  stoppedWithTheBench = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)
    process.once(signal, () => process.exit(code));
}

/**
 * A server in its own process with its log written to a file, as in a deployment; ready when
 * `readyPath` answers 200.
 */
async function startProcess(
  args: string[],
  env: Record<string, string>,
  logFile: string,
  readyPath: string,
  cwd = ROOT,
): Promise<RunningServer> {
  const port = await freePort();
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, args, {
    cwd,
    env: processEnv({ ...env, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  stopServersWithTheBench();
  running.add(child);
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.once('exit', () => running.delete(child));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not become ready; its log:\n${(await readFile(logFile, 'utf8')).slice(-2000)}`);
    }
    try {
      if ((await fetch(`${baseUrl}${readyPath}`)).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    baseUrl,
    port,
    pid: child.pid!,
    child,
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/**
 * `wallet-admin serve` of `checkout`, exactly as `npm start` runs it there; with `profileDir`, under
 * --cpu-prof (the profile is written when the service exits on SIGTERM).
 */
export function startService(
  env: Record<string, string>,
  logFile: string,
  profileDir?: string,
  checkout?: Checkout,
): Promise<RunningServer> {
  const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const root = checkout?.root ?? ROOT;
  return startProcess([...profiling, cliOf(root), 'serve'], { NODE_ENV: 'production', ...env }, logFile, '/readyz', root);
}

export type BaselineName = 'bare-fastify' | 'bare-contract' | 'express-viem';

/** One of the baseline servers in bench/baselines. */
export function startBaseline(name: BaselineName, logFile: string, env: Record<string, string> = {}): Promise<RunningServer> {
  return startProcess(['--import', 'tsx', path.join(ROOT, 'bench/baselines', `${name}.ts`)], env, logFile, '/ready');
}

/** Resident set size of a process, from /proc (Linux). */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/**
 * Bytes a process has caused to be written to storage so far, from /proc/<pid>/io: write_bytes
 * less cancelled_write_bytes. The kernel counts a page when it is dirtied and cancels the count
 * when the file is deleted before the page is written back — as happens to the per-file lock
 * files (a pid in a 4 KiB page each, created and removed within milliseconds).
 */
export async function writtenBytes(pid: number): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(io)![1]);
  return field('write_bytes') - field('cancelled_write_bytes');
}
