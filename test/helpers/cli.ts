import { spawn } from 'node:child_process';
import { after, before } from 'node:test';
import type { Setup } from './backends.ts';
import { builtBin } from './bin.ts';
import { FilesClient } from './files.ts';
import { createTenantFixture, type TenantFixture } from './fixtures.ts';
import { assertNoSecretsInOutput, configuredSecrets } from './log-secrets.ts';
import { createStorage, type Storage, startTestService, type TestService } from './test-service.ts';
import { signIn } from './wallets.ts';

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

/** A running service and the CLI on its storage, as an operator runs `wallet-admin` beside a server. */
export interface ServerAndCli {
  svc: TestService;
  /** A tenant whose owner is linked to one channel. */
  fixture: TenantFixture;
  /** The owner's client of the service, signed in. */
  client: FilesClient;
  /** Runs the CLI on the service's storage. */
  cli(...args: string[]): Promise<CliResult>;
}

/** Starts a ServerAndCli before the suite that calls this and stops it after; its fields are set from `before` on. */
export function useServerAndCli(setup: Setup, tenantName: string): ServerAndCli {
  let storage: Storage;
  let env: Record<string, string | undefined>;
  const suite = { cli: (...args: string[]) => runCli(args, env) } as ServerAndCli;
  before(async () => {
    storage = await createStorage(setup);
    env = { DATA_DIR: storage.dataDir, DATABASE_URL: storage.databaseUrl, ...storage.env };
    suite.svc = await startTestService(setup, { storage });
    suite.fixture = await createTenantFixture(suite.svc.service.store, tenantName);
    const auth = await signIn(suite.fixture.ownerWallet, suite.svc.config.auth.domains[0]!);
    suite.client = new FilesClient(suite.svc.baseUrl, suite.fixture.channel.id, { ...auth });
  });
  after(async () => {
    await suite.svc.close();
    await storage.drop();
  });
  return suite;
}
