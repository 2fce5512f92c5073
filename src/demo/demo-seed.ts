import type { Config } from '../config/config.ts';
import { isLoopbackHost } from '../config/loopback.ts';
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
 * Why a first start must not create the demo data, or undefined when it may. Anyone can sign with
 * the demo owner's key, so the demo owner may exist only where nobody else can reach the service:
 * outside production, listening on loopback, and with a loopback public address (a loopback HOST
 * behind a proxy that publishes it at https://admin.example.com is reachable from anywhere).
 */
export function demoRefusal(config: Pick<Config, 'production' | 'host' | 'publicBaseUrl'>): string | undefined {
  if (config.production) return 'NODE_ENV=production';
  if (!isLoopbackHost(config.host)) return `HOST ${config.host} is not a loopback address`;
  if (!isLoopbackHost(new URL(config.publicBaseUrl).hostname)) return `PUBLIC_BASE_URL ${config.publicBaseUrl} is not a loopback address`;
  return undefined;
}

/** The start-up line of a first start that created no demo data: why, and how to create the first admin instead. */
export function withoutDemoNotice(reason: string): string {
  return (
    `No demo data was created on this first start on empty data: ${reason}. The demo owner's private key is published, ` +
    'so demo data is created only without NODE_ENV=production, on a loopback HOST and a loopback PUBLIC_BASE_URL. ' +
    'Create the first tenant, owner admin and channel with the CLI (same settings): ' +
    'wallet-admin tenant create --name NAME; ' +
    'wallet-admin admin create --tenant TENANT_ID --wallet YOUR_WALLET_ADDRESS --name NAME; ' +
    'wallet-admin channel create --tenant TENANT_ID --name NAME; ' +
    'wallet-admin channel link --channel CHANNEL_ID --admin ADMIN_ID'
  );
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
