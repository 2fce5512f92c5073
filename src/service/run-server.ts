import { createSignInHeaders, curlCommand } from '../auth/signing/sign-in-headers.ts';
import type { Config } from '../config/config.ts';
import { DEMO_PRIVATE_KEY, demoRefusal, firstAdminBanner, seedDemo, withoutDemoNotice } from '../demo/demo-seed.ts';
import { createLogger } from '../logging/logger.ts';
import { createService } from './service.ts';
import { closeOnSignal } from './shutdown-signals.ts';

const DEMO_MESSAGE_TTL_SECONDS = 86400;

/** `wallet-admin serve`: listen until SIGTERM/SIGINT, then drain (for at most SHUTDOWN_TIMEOUT) and close. */
export async function runServer(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const service = await createService(config, logger);
  const noDemoBecause = demoRefusal(config);
  const demo = noDemoBecause === undefined ? await seedDemo(service.store, service.files) : undefined;
  const emptyWithoutDemo = noDemoBecause !== undefined && (await service.store.isEmpty());
  await service.app.listen({ host: config.host, port: config.port });
  const consoleUrl = `${config.publicBaseUrl}/console/`;
  const apiReferenceUrl = `${config.publicBaseUrl}/api/docs`;
  const openApiUrl = `${config.publicBaseUrl}/api/openapi.json`;
  logger.info(
    { engine: service.store.engine, dataDir: config.dataDir, authDomains: config.auth.domains, consoleUrl, apiReferenceUrl },
    `wallet-admin listening on ${config.publicBaseUrl} (console: ${consoleUrl}, API reference: ${apiReferenceUrl})`,
  );

  if (emptyWithoutDemo) {
    logger.warn({ reason: noDemoBecause }, withoutDemoNotice(noDemoBecause));
    // The log line is for the record; the operator at the terminal gets the commands one per line.
    process.stdout.write(firstAdminBanner(noDemoBecause, { consoleUrl, apiReferenceUrl, openApiUrl }));
  }
  if (demo) {
    const headers = await createSignInHeaders({
      privateKey: DEMO_PRIVATE_KEY,
      domain: config.auth.domains[0]!,
      uri: config.publicBaseUrl,
      ttlSeconds: DEMO_MESSAGE_TTL_SECONDS,
    });
    process.stdout.write(
      `\nFirst start: created demo tenant ${demo.tenantId}, owner admin ${demo.adminId} and channel ${demo.channelId}\n` +
        `for the published development wallet ${headers['X-WAL']} (Hardhat/Anvil account #0; never use it for real data).\n` +
        `Try it (valid for 24 hours; \`npm exec --no -- wallet-admin sign --private-key <key>\` in the project's folder signs a new one):\n\n` +
        `${curlCommand(`${config.publicBaseUrl}/api/auth/test`, headers)}\n\n` +
        `Channel "demo" holds example files, one backup and a changed welcome/prices.csv to restore.\n\n` +
        `Or open the admin console at ${consoleUrl} and sign in there with a browser wallet that holds the\n` +
        `development key (README says how to import it into one).\n\n` +
        `The API reference: ${apiReferenceUrl} (the OpenAPI document: ${openApiUrl}).\n\n`,
    );
  }

  await closeOnSignal((deadlineMs) => service.close(deadlineMs), config.shutdownTimeoutSeconds * 1000, logger);
}
