import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ENGINES } from '../helpers/backends.ts';
import { createTestDatabase } from '../helpers/postgres.ts';
import { metadataStoreContract, type TestStorage } from './metadata-store.contract.ts';

async function sqliteStorage(): Promise<TestStorage> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-store-'));
  return { options: { dataDir }, drop: () => rm(dataDir, { recursive: true, force: true }) };
}

async function postgresStorage(): Promise<TestStorage> {
  const database = await createTestDatabase();
  return { options: { dataDir: os.tmpdir(), databaseUrl: database.url }, drop: () => database.drop() };
}

const STORAGES = { sqlite: sqliteStorage, postgres: postgresStorage };
for (const engine of ENGINES) metadataStoreContract(engine, STORAGES[engine]);
