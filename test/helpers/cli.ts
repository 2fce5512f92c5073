import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cliBundle } from './bundle.ts';

export const BIN = fileURLToPath(new URL('../../bin/wallet-admin.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json(): any;
}

/**
 * Runs `wallet-admin` as a user would, in its own process: the CLI's current sources bundled
 * (cliBundle), as `npm run build` compiles them for bin/wallet-admin.js; serve.test.ts runs the bin itself.
 */
export async function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  const entry = await cliBundle();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, json: () => JSON.parse(stdout) }));
  });
}
