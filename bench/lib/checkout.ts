import { execFile } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A checkout of wallet-admin whose service the bench starts: this one, or another to compare with (--against). */
export interface Checkout {
  root: string;
  /** Its commit, for the results: `git describe --always --dirty`, or the folder when it is not a git work tree. */
  label: string;
}

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The CLI of the checkout at `root`, which `npm start` runs with `serve`. */
export const cliOf = (root: string) => path.join(root, 'bin/wallet-admin.js');

/** The environment every process of a checkout gets: nothing of the bench's own but PATH and HOME. */
export const processEnv = (env: Record<string, string>) => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env });

async function labelOf(root: string): Promise<string> {
  try {
    return (await run('git', ['-C', root, 'describe', '--always', '--dirty'])).stdout.trim();
  } catch {
    return root;
  }
}

let thisCheckout: Promise<Checkout> | undefined;
/** The checkout the bench itself belongs to. */
export function currentCheckout(): Promise<Checkout> {
  thisCheckout ??= labelOf(ROOT).then((label) => ({ root: ROOT, label }));
  return thisCheckout;
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/**
 * Another checkout of wallet-admin, ready to serve: its dependencies installed and its CLI built
 * (`npm ci` there does both). The bench builds only its own checkout, so a missing install or build
 * is an error here rather than a service that fails to start half-way through a run.
 */
export async function otherCheckout(folder: string): Promise<Checkout> {
  const root = path.resolve(folder);
  const cli = cliOf(root);
  const fail = (why: string) => new Error(`--against ${root}: ${why}`);
  if (!(await exists(cli))) throw fail('no bin/wallet-admin.js: not a checkout of wallet-admin');
  if (!(await exists(path.join(root, 'node_modules')))) throw fail('no node_modules: run "npm ci" there first');
  // Since the build step, bin/wallet-admin.js runs dist/main.mjs; older commits run the sources through tsx.
  if ((await readFile(cli, 'utf8')).includes('dist/main.mjs') && !(await exists(path.join(root, 'dist/main.mjs'))))
    throw fail('no dist/main.mjs: not built; run "npm ci" (or "npm run build") there first');
  try {
    // --help, which every release answers (--version came later: 73f105b calls it an unknown command).
    await run(process.execPath, [cli, '--help'], { cwd: root, env: processEnv({}) });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw fail(`its CLI does not start: ${stderr.trim().slice(0, 500)}`);
  }
  return { root, label: await labelOf(root) };
}

/** Runs one command of a checkout's CLI with `--json` and returns what it printed. */
export async function runCli<T>(checkout: Checkout, args: string[], env: Record<string, string>): Promise<T> {
  try {
    const { stdout } = await run(process.execPath, [cliOf(checkout.root), ...args, '--json'], { cwd: checkout.root, env: processEnv(env) });
    return JSON.parse(stdout) as T;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `wallet-admin ${args.join(' ')} (${checkout.root}) failed: ${(stdout ?? '') + (stderr ?? String(error))}`.slice(0, 2000),
    );
  }
}
