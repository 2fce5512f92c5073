import type { Config } from '../config/config.ts';
import { demoRefusal, firstAdminBanner, seedDemo, withoutDemoNotice } from '../demo/demo-seed.ts';
import { activeDemoOwner, demoWelcome } from '../demo/demo-welcome.ts';
import { createLogger } from '../logging/logger.ts';
import { isAddressInUse, PortInUseError, reservePort } from './port-reservation.ts';
import { createService, type Service } from './service.ts';
import { closeOnSignal } from './shutdown-signals.ts';

/** `wallet-admin serve`: listen until SIGTERM/SIGINT, then drain (for at most SHUTDOWN_TIMEOUT) and close. */
export async function runServer(config: Config): Promise<void> {
  // First of all: a port in use stops the start before it writes anything (DATA_DIR, the demo).
  const reservation = await reservePort(config.host, config.port);
  const logger = createLogger(config.logLevel);
  let service: Service | undefined;
  let prepared: Awaited<ReturnType<typeof prepare>>;
  try {
    service = await createService(config, logger);
    prepared = await prepare(config, service);
    await reservation.release();
    await listen(service, config);
  } catch (error) {
    // Stopped, so that the process can end (its workers and timers would keep it).
    await reservation.release();
    await service?.close();
    throw error;
  }
  // Before the service says it listens: whoever reads that may signal it at once.
  const closed = closeOnSignal((deadlineMs) => service.close(deadlineMs), config.shutdownTimeoutSeconds * 1000, logger);
  const { noDemoBecause, seeded, emptyWithoutDemoBecause } = prepared;
  const consoleUrl = `${config.publicBaseUrl}/console/`;
  const apiReferenceUrl = `${config.publicBaseUrl}/api/docs`;
  const links = { consoleUrl, apiReferenceUrl, openApiUrl: `${config.publicBaseUrl}/api/openapi.json` };
  logger.info(
    { engine: service.store.engine, dataDir: config.dataDir, authDomains: config.auth.domains, consoleUrl, apiReferenceUrl },
    `wallet-admin listening on ${config.publicBaseUrl} (console: ${consoleUrl}, API reference: ${apiReferenceUrl})`,
  );

  if (emptyWithoutDemoBecause !== undefined) {
    logger.warn({ reason: emptyWithoutDemoBecause }, withoutDemoNotice(emptyWithoutDemoBecause));
    // The log line is for the record; the operator at the terminal gets the commands one per line.
    process.stdout.write(firstAdminBanner(emptyWithoutDemoBecause, links));
  }
  const owner = noDemoBecause === undefined ? await activeDemoOwner(service.store) : undefined;
  if (owner) process.stdout.write(await demoWelcome(config, owner, seeded, links));
  await closed;
}

/**
 * What a start does before it listens: the demo data, on loopback (seeded on a first start, or
 * completed when an earlier one stopped midway), or why there is none on a first start elsewhere.
 */
async function prepare(config: Config, service: Service) {
  const noDemoBecause = demoRefusal(config);
  const seeded = noDemoBecause === undefined ? await seedDemo(service.store, service.files) : undefined;
  // A first start that may not create the demo says why, and how to create the first admin instead.
  const emptyWithoutDemoBecause = noDemoBecause !== undefined && (await service.store.isEmpty()) ? noDemoBecause : undefined;
  return { noDemoBecause, seeded, emptyWithoutDemoBecause };
}

/** Listens where the settings say; the port, reserved until just before, may have been taken meanwhile. */
async function listen(service: Service, config: Config): Promise<void> {
  try {
    await service.app.listen({ host: config.host, port: config.port });
  } catch (error) {
    if (isAddressInUse(error)) throw new PortInUseError(config.host, config.port, undefined, false);
    throw error;
  }
}
