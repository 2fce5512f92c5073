import type { FileServices } from '../files/file-services.ts';
import type { TenantDirectory } from '../store/types.ts';
import { seedDemoFiles } from './demo-files.ts';

/**
 * Account #0 of the Hardhat/Anvil development mnemonic: published everywhere, so it must never
 * guard anything real. It exists so that a first start can show a working signed request.
 */
export const DEMO_PRIVATE_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const DEMO_WALLET = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

export interface DemoData {
  tenantId: string;
  adminId: string;
  channelId: string;
}

/**
 * Creates the demo tenant, owner admin and channel, and the channel's example files, when the
 * store holds no tenant yet. The files are seeded only here, right after the tenant: a later
 * start finds a tenant and seeds nothing, so files an admin deleted never come back.
 */
export async function seedDemoIfEmpty(
  store: TenantDirectory,
  services: Pick<FileServices, 'files' | 'backups'>,
): Promise<DemoData | undefined> {
  if (!(await store.isEmpty())) return undefined;
  const tenant = await store.createTenant({ name: 'Demo tenant' });
  const admin = await store.createAdmin({ tenantId: tenant.id, wallet: DEMO_WALLET, displayName: 'Demo owner' });
  const channel = await store.createChannel({ tenantId: tenant.id, name: 'demo' });
  await store.linkChannel(channel.id, admin.id);
  await seedDemoFiles(services, channel, { adminId: admin.id });
  return { tenantId: tenant.id, adminId: admin.id, channelId: channel.id };
}
