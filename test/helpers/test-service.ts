import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import { type Config, loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service/service.ts';
import type { Setup } from './backends.ts';
import { servedInProcess, serveInProcess } from './http.ts';
import { assertNoSecretsInLogs, configuredSecrets } from './log-secrets.ts';
import { createTestDatabase } from './postgres.ts';
import type { TestS3 } from './s3-server.ts';

/**
 * How a test reaches a service. `inject`: `app.inject` in this process, no socket, as fastify/demo's
 * test helper does; `request()` and FilesClient route the service's origin there. `socket`: it
 * listens on a loopback port, for what only a connection shows (keep-alive, timeouts, connection
 * limits, raw framing) and for clients other than `request()` (fetch, raw sockets, other processes).
 */
export type Transport = 'inject' | 'socket';

export interface TestService {
  service: Service;
  config: Config;
  /** Its origin, for `request()` and FilesClient over either transport; a unique loopback port. */
  baseUrl: string;
  /** Every JSON log line the service wrote. */
  logs: string[];
  close(): Promise<void>;
}

export interface Storage {
  dataDir: string;
  databaseUrl: string | undefined;
  /** What a service or CLI needs besides DATA_DIR and DATABASE_URL: the bucket's settings on S3. */
  env: Record<string, string>;
  /** The S3 server of 'postgres+s3', to look at what the service asked of it. */
  s3: TestS3 | undefined;
  drop(): Promise<void>;
}

/**
 * A fresh, empty place for metadata and files: a temp DATA_DIR, plus a fresh database for
 * PostgreSQL, plus a fresh bucket on a loopback S3 server for 'postgres+s3'.
 */
export async function createStorage(setup: Setup): Promise<Storage> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-test-'));
  const database = setup === 'sqlite' ? undefined : await createTestDatabase();
  // s3rver takes about a second to load: only files that use the bucket pay for it.
  const s3 = setup === 'postgres+s3' ? await (await import('./s3-server.ts')).startTestS3() : undefined;
  return {
    dataDir,
    databaseUrl: database?.url,
    env: s3?.env ?? {},
    s3,
    async drop() {
      await s3?.close();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The settings that point a service at a storage setup's metadata and files. */
export function storageEnv(storage: Storage, dataDir = storage.dataDir): Record<string, string> {
  return { DATA_DIR: dataDir, ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}), ...storage.env };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts the real service (the same createService as `wallet-admin serve`), reached through
 * `app.inject` or, with `transport: 'socket'`, on a free loopback port. Pass `storage` to share
 * metadata between instances; otherwise the service gets its own.
 */
/** How long a test service's close lets requests in flight finish before it cuts their connections. */
const CLOSE_DEADLINE_MS = 5000;

export async function startTestService(
  setup: Setup,
  options: {
    env?: Record<string, string>;
    storage?: Storage;
    transport?: Transport;
    consoleDir?: string;
    /** The sign-ins' clock (see ServiceOptions.now): a test moves it past a bound instead of waiting for it. */
    now?: () => number;
  } = {},
): Promise<TestService> {
  const storage = options.storage ?? (await createStorage(setup));
  let port = await freePort();
  // Only a listening service holds its port; two injected ones of this process must not share one.
  while (options.transport !== 'socket' && servedInProcess(`http://127.0.0.1:${port}`)) port = await freePort();
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'info',
    // In-process services check sign-ins on the event loop: a worker under tsx costs a second to
    // start, and hundreds of services start here. The workers are tested on their own
    // (verification-pool.unit.test.ts, auth-test.unit.test.ts) and by every test of the real bin.
    AUTH_RECOVERY_THREADS: '0',
    ...storageEnv(storage),
    ...options.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      callback();
    },
  });
  const service = await createService(config, createLogger(config.logLevel, sink), { consoleDir: options.consoleDir, now: options.now });
  const baseUrl = `http://127.0.0.1:${port}`;
  let stopServing = () => {};
  if (options.transport === 'socket') await service.app.listen({ host: config.host, port: config.port });
  else stopServing = serveInProcess(baseUrl, service.app);
  return {
    service,
    config,
    baseUrl,
    logs,
    async close() {
      stopServing();
      // With a deadline, as a SIGTERM has (SHUTDOWN_TIMEOUT): a keep-alive connection of the test's own
      // HTTP client that the server still counts as busy would otherwise hold the close for up to a
      // minute (seen: 70 s after a file's last test), which no test here is about.
      await service.close(CLOSE_DEADLINE_MS);
      if (!options.storage) await storage.drop();
      // Every service a test starts has its whole log checked: no credential, no configured secret.
      assertNoSecretsInLogs(logs, configuredSecrets({ ...storageEnv(storage), ...options.env }));
    },
  };
}

/** Starts a service for the duration of one test (or suite) and closes it afterwards. */
export async function serviceFor(
  t: Pick<TestContext, 'after'>,
  setup: Setup,
  options: Parameters<typeof startTestService>[1] = {},
): Promise<TestService> {
  const started = await startTestService(setup, options);
  t.after(() => started.close());
  return started;
}
