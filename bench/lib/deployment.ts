import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { openMetadataStore } from '../../src/store/open-metadata-store.ts';
import { createTestDatabase } from '../../test/helpers/postgres.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Deployment {
  engine: Engine;
  dataDir: string;
  /** DATA_DIR, and DATABASE_URL on PostgreSQL: what `wallet-admin serve` needs. */
  env: Record<string, string>;
  /** The owner admin of one tenant, linked to `channelId`. */
  privateKey: `0x${string}`;
  address: `0x${string}`;
  channelId: string;
  remove(): Promise<void>;
}

/** A fresh DATA_DIR (and database) holding one tenant, its owner admin and one channel. */
export async function createDeployment(engine: Engine): Promise<Deployment> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wa-bench-'));
  const database = engine === 'postgres' ? await createTestDatabase() : undefined;
  const store = await openMetadataStore({ dataDir, databaseUrl: database?.url });
  const privateKey = generatePrivateKey();
  const { address } = privateKeyToAccount(privateKey);
  let channelId: string;
  try {
    const tenant = await store.createTenant({ name: 'Bench' });
    const owner = await store.createAdmin({ tenantId: tenant.id, wallet: address, displayName: 'Bench owner' });
    const channel = await store.createChannel({ tenantId: tenant.id, name: 'bench' });
    await store.linkChannel(channel.id, owner.id);
    channelId = channel.id;
  } finally {
    await store.close();
  }
  return {
    engine,
    dataDir,
    env: { DATA_DIR: dataDir, LOG_LEVEL: 'info', ...(database ? { DATABASE_URL: database.url } : {}) },
    privateKey,
    address,
    channelId,
    async remove() {
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
