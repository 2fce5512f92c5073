import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createTestDatabase } from '../../test/helpers/postgres.ts';
import { type Checkout, currentCheckout, runCli } from './checkout.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Deployment {
  engine: Engine;
  dataDir: string;
  /** DATA_DIR, and DATABASE_URL on PostgreSQL: what `wallet-admin serve` needs. */
  env: Record<string, string>;
  /** The tenant, and its owner admin (`adminId`), linked to `channelId`. */
  tenantId: string;
  adminId: string;
  privateKey: `0x${string}`;
  address: `0x${string}`;
  channelId: string;
  remove(): Promise<void>;
}

/**
 * A fresh DATA_DIR (and database) holding one tenant, its owner admin and one channel, made with the
 * CLI of the checkout that will serve it, as an operator would: so that a checkout compared with
 * --against, whose schema may be older, gets a deployment of its own making, like this one.
 */
export async function createDeployment(engine: Engine, checkout?: Checkout): Promise<Deployment> {
  const owner = checkout ?? (await currentCheckout());
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wa-bench-'));
  const database = engine === 'postgres' ? await createTestDatabase() : undefined;
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'info', ...(database ? { DATABASE_URL: database.url } : {}) };
  const remove = async () => {
    try {
      await database?.drop();
    } finally {
      // Also when the drop fails (the shared server restarted by another suite): the folder is ours alone.
      await rm(dataDir, { recursive: true, force: true });
    }
  };
  const privateKey = generatePrivateKey();
  const { address } = privateKeyToAccount(privateKey);
  const cli = (...args: string[]) => runCli<{ id: string }>(owner, args, env);
  try {
    const tenant = await cli('tenant', 'create', '--name', 'Bench');
    const admin = await cli('admin', 'create', '--tenant', tenant.id, '--wallet', address, '--name', 'Bench owner');
    const channel = await cli('channel', 'create', '--tenant', tenant.id, '--name', 'bench');
    await cli('channel', 'link', '--channel', channel.id, '--admin', admin.id);
    return { engine, dataDir, env, tenantId: tenant.id, adminId: admin.id, privateKey, address, channelId: channel.id, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
