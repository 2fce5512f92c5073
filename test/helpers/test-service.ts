import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import { loadConfig, type Config } from '../../src/config/config.ts';
import { createLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service/service.ts';
import { createTestDatabase } from './postgres.ts';
import { startTestS3, type TestS3 } from './s3-server.ts';

export type Engine = 'sqlite' | 'postgres';
export const ENGINES: Engine[] = ['sqlite', 'postgres'];

/** Where metadata and file bytes live: an engine on local disk, or PostgreSQL with an S3 bucket. */
export type Setup = Engine | 'postgres+s3';
/** The file, backup and restore suites run on each: the embedded default and both scale-out parts. */
export const FILE_SETUPS: Setup[] = ['sqlite', 'postgres', 'postgres+s3'];

export interface TestService {
  service: Service;
  config: Config;
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
  const s3 = setup === 'postgres+s3' ? await startTestS3() : undefined;
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
 * Starts the real service (the same createService as `wallet-admin serve`) on a free loopback
 * port. Pass `storage` to share metadata between instances; otherwise the service gets its own.
 */
export async function startTestService(
  setup: Setup,
  options: { env?: Record<string, string>; storage?: Storage } = {},
): Promise<TestService> {
  const storage = options.storage ?? (await createStorage(setup));
  const port = await freePort();
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'info',
    ...storageEnv(storage),
    ...options.env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logs.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      callback();
    },
  });
  const service = await createService(config, createLogger(config.logLevel, sink));
  await service.app.listen({ host: config.host, port: config.port });
  return {
    service,
    config,
    baseUrl: `http://127.0.0.1:${port}`,
    logs,
    async close() {
      await service.close();
      if (!options.storage) await storage.drop();
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
