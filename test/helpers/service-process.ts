import { type ChildProcess, spawn } from 'node:child_process';
import { builtBin } from './bin.ts';
import { assertNoSecretsInOutput, configuredSecrets } from './log-secrets.ts';

export interface ServiceProcess {
  child: ChildProcess;
  /** Standard output and error as they arrived, together. */
  output(): string;
  /**
   * The exit code, once the process has closed and its output was scanned for credentials and
   * secrets (see log-secrets.ts): rejects, naming the line, when a line holds one.
   */
  exited: Promise<number | null>;
  /** Kills the process unless it has exited, then awaits `exited`: what a test's cleanup calls. */
  stop(): Promise<void>;
}

/**
 * `wallet-admin serve` in its own process, as an operator runs it (bin/wallet-admin.js over a fresh
 * dist/); output collected, and scanned when it closes.
 */
export function spawnService(env: Record<string, string>, options: { boundByFileModes?: boolean } = {}): ServiceProcess {
  const [command, ...args] = [...(options.boundByFileModes ? BOUND_BY_FILE_MODES : []), process.execPath, builtBin(), 'serve'];
  const child = spawn(command!, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve, reject) =>
    child.on('close', (code) => {
      try {
        assertNoSecretsInOutput({ stdout, stderr }, configuredSecrets(env));
        resolve(code);
      } catch (error) {
        reject(error);
      }
    }),
  );
  return {
    child,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
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
 * How a test of file permissions starts the service: root ignores permission bits, so a test
 * running as root starts it still as root but without the capabilities that override them
 * (setpriv, from util-linux, drops them from the bounding set before it runs the service): the
 * files the test made stay readable to it wherever the clone lives (root owns them, and an owner
 * may read a folder of mode 0700), and a mode without write access refuses it. Anyone else runs
 * the service as themselves, bound by the modes already.
 */
const BOUND_BY_FILE_MODES: string[] =
  process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search,-fowner', '--'] : [];
