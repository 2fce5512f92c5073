import { spawn } from 'node:child_process';

export interface ShellResult {
  code: number | null;
  /** Standard output and error as they arrived, together: what the user's terminal shows. */
  output: string;
}

/**
 * Runs `command` (a line of sh, as a user types it) in `cwd` as a user of the Node.js installation
 * whose bin/ (node, npm, npx) is `nodeBin`: only that and the system's folders on PATH, a HOME of
 * its own, standard input closed. Nothing of the npm that runs the tests reaches it (its npm_*
 * variables name this project's folder as the one to install into), nor the developer's npm
 * configuration.
 */
export function runAsUser(command: string, options: { cwd: string; nodeBin: string; home: string }): Promise<ShellResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], {
      cwd: options.cwd,
      env: { PATH: `${options.nodeBin}:/usr/local/bin:/usr/bin:/bin`, HOME: options.home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}
