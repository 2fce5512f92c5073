import { AdministrationAudit } from '../administration/administration-audit.ts';
import { DirectoryChanges } from '../administration/directory-changes.ts';
import type { Config } from '../config/config.ts';
import { isLoopbackHost } from '../config/loopback.ts';
import type { FileServices } from '../files/file-services.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import type { DemoSeedingRecords, TenantDirectory } from '../model/tenants.ts';
import { DEMO_FILE_STEPS, type StepDone, seedDemoFiles } from './demo-files.ts';

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
  /** True when an earlier first start began the demo and stopped midway, and this one completed it. */
  completedEarlierStart: boolean;
}

/**
 * Why a first start must not create the demo data, or undefined when it may. Anyone can sign with
 * the demo owner's key, so the demo owner may exist only where nobody else can reach the service:
 * outside production, listening on loopback, with a loopback public address (a loopback HOST
 * behind a proxy that publishes it at https://admin.example.com is reachable from anywhere), no
 * proxy trusted to forward clients (TRUST_PROXY: there is one, so others reach the service through
 * it), and no sign-in domain but loopback ones (AUTH_DOMAINS naming admin.example.com says that is
 * where people reach it). The same reasons refuse the published wallet's sign-ins (see service.ts).
 */
export function demoRefusal(
  config: Pick<Config, 'production' | 'host' | 'publicBaseUrl' | 'trustProxy'> & { auth: Pick<Config['auth'], 'domains'> },
): string | undefined {
  if (config.production) return 'NODE_ENV=production';
  if (!isLoopbackHost(config.host)) return `HOST ${config.host} is not a loopback address`;
  if (!isLoopbackHost(new URL(config.publicBaseUrl).hostname)) return `PUBLIC_BASE_URL ${config.publicBaseUrl} is not a loopback address`;
  if (config.trustProxy.length > 0) return 'TRUST_PROXY is set: clients reach the service through a proxy';
  const published = config.auth.domains.find((domain) => !isLoopbackHost(hostOfDomain(domain)));
  if (published !== undefined) return `AUTH_DOMAINS names ${published}, which is not a loopback address`;
  return undefined;
}

/** The host of an AUTH_DOMAINS entry (host[:port], an IPv6 address in brackets); '' when it has none. */
function hostOfDomain(domain: string): string {
  try {
    return new URL(`http://${domain}`).hostname;
  } catch {
    return '';
  }
}

/** The detail of a refused sign-in of the published wallet: why, and what to do, without the settings that made it so. */
export const PUBLISHED_WALLET_REFUSAL =
  `${DEMO_WALLET} is the published development wallet (Hardhat/Anvil account #0): anyone holds its key, so it cannot ` +
  'sign in to a service in production or reachable from other machines (the start-up log says which setting makes it so). ' +
  'Sign in with your own wallet; an operator gives the demo owner yours with wallet-admin admin set-wallet, ' +
  'or suspends it with wallet-admin admin set-status --status SUSPENDED.';

/** The start-up warning when a demo owner made on an earlier loopback start meets a start that refuses it. */
export function demoOwnerRefusedNotice(reason: string, adminId: string): string {
  return (
    `The demo owner (admin ${adminId}, the published development wallet ${DEMO_WALLET}, whose key anyone holds) exists from ` +
    `an earlier start, and ${reason}: its sign-ins are refused (403 PUBLISHED_WALLET_REFUSED) while the service runs so. ` +
    `Give that admin your own wallet (wallet-admin admin set-wallet --admin ${adminId} --wallet 0xYOUR_WALLET_ADDRESS) ` +
    `or suspend it (wallet-admin admin set-status --admin ${adminId} --status SUSPENDED), with the service's settings.`
  );
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
    'so demo data is created only without NODE_ENV=production, on a loopback HOST and a loopback PUBLIC_BASE_URL, ' +
    'without TRUST_PROXY and with loopback AUTH_DOMAINS only. ' +
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
 * What seeds the demo: the directory records (each change with its audit entry, the service as
 * actor: directory-changes.ts), and the demo channel's files through the file services.
 */
export type DemoSeedingStore = TenantDirectory & DemoSeedingRecords & Pick<MetadataStore, 'atomically' | 'files'>;

const DEMO_TENANT_NAME = 'Demo tenant';
const DEMO_CHANNEL_NAME = 'demo';
/** The demo is the service's own doing: its entries carry no admin and no operator. */
const SERVICE = { adminId: null };

/** Every step of the demo's seeding, in order: what `stepDone` is told (a test stops the seeding after each). */
export const DEMO_STEPS = ['create the tenant', 'create the owner admin', 'create the channel', 'link the channel', ...DEMO_FILE_STEPS];

/**
 * Creates the demo tenant, owner admin and channel, and the channel's example files, on a store
 * that holds no tenant yet; or completes them, when an earlier start began and stopped midway
 * (Ctrl-C, a crash, a full disk): the store records that the seeding began before the first
 * record, and that it is complete after the last step, and each step first looks whether it is
 * done. A start after a complete seeding, or on a store that had tenants, seeds nothing, so files an
 * admin deleted never come back. Returns the demo's records when this call seeded (or completed) it.
 */
export async function seedDemo(
  store: DemoSeedingStore,
  services: Pick<FileServices, 'files' | 'backups'>,
  stepDone: StepDone = () => {},
): Promise<DemoData | undefined> {
  const state = await store.demoSeeding();
  if (state === 'complete') return undefined;
  const directory = new DirectoryChanges(store, new AdministrationAudit(store.files), SERVICE);
  if (state === 'none' && !(await store.beginDemoSeeding())) return undefined;
  // The owner is the one admin of the published wallet; a tenant made by a start that stopped before
  // it is found by its name (no other tenant can exist: the seeding began on a store without any).
  let admin = await store.findAdminByWallet(DEMO_WALLET);
  const tenant =
    (admin && (await store.getTenant(admin.tenantId))) ??
    (await store.listTenants()).find((t) => t.name === DEMO_TENANT_NAME) ??
    (await directory.createTenant({ name: DEMO_TENANT_NAME }));
  await stepDone(DEMO_STEPS[0]!);
  admin ??= await directory.createAdmin({ tenantId: tenant.id, wallet: DEMO_WALLET, displayName: 'Demo owner' });
  await stepDone(DEMO_STEPS[1]!);
  const channel =
    (await store.findChannelByName(tenant.id, DEMO_CHANNEL_NAME)) ??
    (await directory.createChannel({ tenantId: tenant.id, name: DEMO_CHANNEL_NAME }));
  await stepDone(DEMO_STEPS[2]!);
  // Linking twice links once, and records once.
  await directory.link(channel, admin.id, true);
  await stepDone(DEMO_STEPS[3]!);
  await seedDemoFiles(services, channel, { adminId: admin.id }, stepDone);
  await store.completeDemoSeeding();
  return { tenantId: tenant.id, adminId: admin.id, channelId: channel.id, completedEarlierStart: state === 'begun' };
}
