import { spawn } from 'node:child_process';
import { assertNoSecretsInOutput, configuredSecrets } from './log-secrets.ts';

/** A crash worker process (crash-worker.ts, scope-crash-worker.ts) that has recovered and waits for `go`. */
export interface CrashWorker {
  /**
   * Starts its work, with `args` on the `go` line if any: scope-crash-worker.ts takes a point of
   * its progress to kill itself at (and where to start), so that the kill falls there rather than
   * at a point of the clock.
   */
  go(...args: number[]): void;
  /** Resolves once the worker has killed itself (see go); rejects if it ended otherwise. */
  killedItself(): Promise<void>;
  kill(): Promise<void>;
}

/** Starts a bundled crash worker and resolves once it has recovered (printed `ready`). */
export function startCrashWorker(bundle: string, env: Record<string, string>): Promise<CrashWorker> {
  const child = spawn(process.execPath, [bundle], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ended = (how: string, code: number | null | undefined) => new Error(`the worker ${how} (${code}):\n${stderr.slice(-2000)}`);
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (!chunk.toString().includes('ready')) return;
      resolve({
        go: (...args) => child.stdin.write(`${['go', ...args].join(' ')}\n`),
        async killedItself() {
          const { code, signal } = await exited;
          if (signal !== 'SIGKILL') throw ended('exited without killing itself', code);
        },
        async kill() {
          if (child.exitCode !== null || child.signalCode !== null) throw ended('stopped by itself before the kill', child.exitCode);
          child.kill('SIGKILL');
          await exited;
          assertNoSecretsInOutput({ stderr }, configuredSecrets(env));
        },
      });
    });
    void exited.then(({ code }) => reject(ended('exited before it was ready', code)));
  });
}
