import { spawn } from 'node:child_process';
import { assertNoSecretsInOutput, configuredSecrets } from './log-secrets.ts';

/** A crash worker process (crash-worker.ts, scope-crash-worker.ts) that has recovered and waits for `go`. */
export interface CrashWorker {
  go(): void;
  kill(): Promise<void>;
}

/** Starts a bundled crash worker and resolves once it has recovered (printed `ready`). */
export function startCrashWorker(bundle: string, env: Record<string, string>): Promise<CrashWorker> {
  const child = spawn(process.execPath, [bundle], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (!chunk.toString().includes('ready')) return;
      resolve({
        go: () => child.stdin.write('go\n'),
        async kill() {
          if (child.exitCode !== null)
            throw new Error(`the worker stopped by itself (${child.exitCode}) before the kill:\n${stderr.slice(-2000)}`);
          child.kill('SIGKILL');
          await exited;
          assertNoSecretsInOutput({ stderr }, configuredSecrets(env));
        },
      });
    });
    void exited.then((code) => reject(new Error(`the worker exited (${code}) before it was ready:\n${stderr.slice(-2000)}`)));
  });
}
