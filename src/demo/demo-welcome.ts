import { createSignInHeaders, curlCommand } from '../auth/signing/sign-in-headers.ts';
import type { Config } from '../config/config.ts';
import type { Admin, AdminRecords } from '../model/admins.ts';
import { DEMO_PRIVATE_KEY, DEMO_WALLET, type DemoData, type ServiceLinks } from './demo-seed.ts';
import { signCommandLine } from './sign-command-line.ts';

const DEMO_MESSAGE_TTL_SECONDS = 86400;

/**
 * The admin that holds the published development wallet and may sign in (the demo owner, unless an
 * operator gave it another wallet or suspended it): while there is one, every start on loopback
 * shows how to sign in as it, so that a first start whose welcome went unseen (its port was taken,
 * it was stopped midway) is followed by one that shows it.
 */
export async function activeDemoOwner(store: Pick<AdminRecords, 'findAdminByWallet'>): Promise<Admin | undefined> {
  const admin = await store.findAdminByWallet(DEMO_WALLET);
  return admin?.status === 'ACTIVE' ? admin : undefined;
}

/**
 * What a start on loopback prints while the demo owner holds the published wallet: what this start
 * created (`seeded`, when it did) or who still holds that wallet, a signed curl command that answers
 * 200, how to sign another, and where the console and the API reference are.
 */
export async function demoWelcome(
  config: Pick<Config, 'host' | 'port' | 'publicBaseUrl'> & { auth: Pick<Config['auth'], 'domains'> },
  owner: Admin,
  seeded: DemoData | undefined,
  links: ServiceLinks,
): Promise<string> {
  const headers = await createSignInHeaders({
    privateKey: DEMO_PRIVATE_KEY,
    domain: config.auth.domains[0]!,
    uri: config.publicBaseUrl,
    ttlSeconds: DEMO_MESSAGE_TTL_SECONDS,
  });
  const wallet = `the published development wallet ${headers['X-WAL']} (Hardhat/Anvil account #0; never use it for real data)`;
  const made = seeded && `demo tenant ${seeded.tenantId}, owner admin ${seeded.adminId} and channel ${seeded.channelId}\nfor ${wallet}.`;
  const headline =
    seeded === undefined
      ? `Demo: owner admin ${owner.id} of tenant ${owner.tenantId} holds\n${wallet}.\n` +
        'This welcome shows on every start on loopback until that admin has your wallet or is suspended, with the CLI\n' +
        `(and the service's settings): npm exec --no -- wallet-admin admin set-wallet --admin ${owner.id} --wallet 0xYOUR_WALLET_ADDRESS\n` +
        `or: npm exec --no -- wallet-admin admin set-status --admin ${owner.id} --status SUSPENDED`
      : seeded.completedEarlierStart
        ? `First start, completed: an earlier start began the demo data and stopped midway; this one completed\n${made}`
        : `First start: created ${made}`;
  return (
    `\n${headline}\n` +
    `Try it (valid for 24 hours; \`${signCommandLine(config)}\` in the project's folder signs a new one):\n\n` +
    `${curlCommand(`${config.publicBaseUrl}/api/auth/test`, headers)}\n\n` +
    (seeded === undefined ? '' : 'Channel "demo" holds example files, one backup and a changed welcome/prices.csv to restore.\n\n') +
    `Or open the admin console at ${links.consoleUrl} and sign in there with a browser wallet that holds the\n` +
    `development key (docs/console.md says how to import it into one).\n\n` +
    `The API reference: ${links.apiReferenceUrl} (the OpenAPI document: ${links.openApiUrl}).\n\n`
  );
}
