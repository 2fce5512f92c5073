import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { builtBin } from './bin.ts';

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** `wallet-admin serve` in its own process, as an operator runs it (bin/wallet-admin.js over a fresh dist/); output collected. */
export function spawnService(env: Record<string, string>, as: Pick<SpawnOptions, 'uid' | 'gid'> = {}): ServiceProcess {
  const child = spawn(process.execPath, [builtBin(), 'serve'], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...as,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export async function waitForOutput(served: ServiceProcess, pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const match = served.output().match(pattern);
    if (match) return match;
    if (served.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no ${pattern} in output:\n${served.output()}`);
}

/** Polls /readyz until the service answers 200 (or the process dies). */
export async function waitUntilReady(served: ServiceProcess, baseUrl: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && served.child.exitCode === null) {
    try {
      if ((await fetch(`${baseUrl}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the service at ${baseUrl} did not become ready:\n${served.output()}`);
}

/**
 * Who the service runs as in tests of file permissions: root ignores permission bits, so a test
 * running as root starts the service as `nobody`; anyone else runs it as themselves.
 */
export const UNPRIVILEGED: Pick<SpawnOptions, 'uid' | 'gid'> = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
