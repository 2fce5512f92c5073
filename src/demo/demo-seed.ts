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

// No double quote anywhere: the lines also go into a JSON log message, whose readers stop at one.
const ID_OF_JSON = "node -p 'JSON.parse(fs.readFileSync(0)).id'";

/**
 * How to create the first tenant, owner admin and channel, as shell lines that run as printed
 * from the project's folder with the service's settings, but for the wallet's address (and the names, if you like).
 */
export const FIRST_ADMIN_COMMANDS = [
  `TENANT=$(npm exec --no -- wallet-admin tenant create --name my-organisation --json | ${ID_OF_JSON})`,
  `ADMIN=$(npm exec --no -- wallet-admin admin create --tenant $TENANT --wallet 0xYOUR_WALLET_ADDRESS --name owner --json | ${ID_OF_JSON})`,
  `CHANNEL=$(npm exec --no -- wallet-admin channel create --tenant $TENANT --name main --json | ${ID_OF_JSON})`,
  'npm exec --no -- wallet-admin channel link --channel $CHANNEL --admin $ADMIN',
];

/** The start-up line of a first start that created no demo data: why, and how to create the first admin instead. */
export function withoutDemoNotice(reason: string): string {
  return (
    `No demo data was created on this first start on empty data: ${reason}. The demo owner's private key is published, ` +
    'so demo data is created only without NODE_ENV=production, on a loopback HOST and a loopback PUBLIC_BASE_URL. ' +
    `Create the first tenant, owner admin and channel with the CLI (same settings): ${FIRST_ADMIN_COMMANDS.join('; ')}`
  );
}

/** Where the service shows itself to people: the pages a start-up banner links. */
export interface ServiceLinks {
  consoleUrl: string;
  apiReferenceUrl: string;
  openApiUrl: string;
}

/**
 * What a first start without demo data prints for people: the same commands, one per line, ready
 * to paste, then where to go once signed in (the console, and the API reference, as the demo's
 * banner links them).
 */
export function firstAdminBanner(reason: string, links: ServiceLinks): string {
  return (
    `\nNo tenant exists yet, and no demo data was created (${reason}).\n` +
    "Create the first tenant, owner admin and channel with the CLI, from the project's folder and with the\n" +
    "service's settings (DATA_DIR or DATABASE_URL), putting your wallet's address in the second line:\n\n" +
    `${FIRST_ADMIN_COMMANDS.map((line) => `  ${line}`).join('\n')}\n\n` +
    `Then sign in with that wallet: the console at ${links.consoleUrl}, or npm exec --no -- wallet-admin sign --help.\n\n` +
    `The API reference: ${links.apiReferenceUrl} (the OpenAPI document: ${links.openApiUrl}).\n\n`
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
