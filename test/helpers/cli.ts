import { spawn } from 'node:child_process';
import { builtBin } from './bin.ts';
import { assertNoSecretsInOutput, configuredSecrets } from './log-secrets.ts';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json(): any;
}

/** By default stdin is /dev/null (as under `node --test`); `input` pipes bytes in, `keepOpen` never closes the pipe. */
export interface StdinOptions {
  input?: string | Uint8Array;
  keepOpen?: boolean;
}

/** Runs `wallet-admin` as a user would, in its own process: bin/wallet-admin.js over a fresh dist/ (builtBin). */
export function runCli(args: string[], env: Record<string, string | undefined>, stdin: StdinOptions = {}): Promise<CliResult> {
  const bin = builtBin();
  return new Promise((resolve, reject) => {
    const piped = stdin.input !== undefined || stdin.keepOpen === true;
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: [piped ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    if (stdin.input !== undefined) child.stdin!.write(stdin.input);
    if (piped && !stdin.keepOpen) child.stdin!.end();
    // The child may exit without reading what was piped (EPIPE): that is its answer, not a test failure.
    child.stdin?.on('error', () => {});
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    // A pipe kept open would otherwise hold 'close' back after the child exits.
    child.on('exit', () => child.stdin?.destroy());
    child.on('close', (code) => {
      // What it printed for the user may hold credentials (`sign` prints headers), never a secret; its log lines neither.
      try {
        assertNoSecretsInOutput({ stdout, stderr }, configuredSecrets(env), { answers: true });
      } catch (error) {
        reject(error);
        return;
      }
      resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) });
    });
  });
}
