import type { EventsConfig } from '../config/events-config.ts';
import type { Logger } from '../logging/logger.ts';
import type { AuditEvent } from '../model/audit.ts';
import type { EventRecords } from '../model/events.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { EventBroker } from './brokers/event-broker.ts';
import { openBrokers } from './brokers/open-brokers.ts';
import { type Destination, EventDispatcher } from './dispatcher.ts';
import { accepts } from './event-filter.ts';

export interface Events {
  dispatcher: EventDispatcher;
  close(): Promise<void>;
}

/** How often the delivery log drops what is older than EVENTS_LOG_DAYS. */
const PRUNE_INTERVAL_MS = 3_600_000;

/** The kind a broker's metrics and logs name it by, from its setting. */
const KIND: Record<string, string> = { EVENTS_NATS_URL: 'nats', EVENTS_AMQP_URL: 'amqp', EVENTS_REDIS_URL: 'redis' };

/**
 * Events out at start-up (docs/events.md): the brokers the operator configured, each carrying every
 * tenant's chain and the service-wide one, and the tenants' webhooks, all delivered by one
 * dispatcher on this instance (instances share the work through the leases in the database).
 */
export async function startEvents(options: {
  config: EventsConfig;
  records: EventRecords;
  webhooks: () => Promise<Destination[]>;
  logger: Logger;
  metrics: Metrics;
}): Promise<Events> {
  const { config, records, logger, metrics } = options;
  await forgetRemovedBrokers(config, records, logger);
  // Reconnections are worth a line in the log, as warnings: the service's logger has no info level.
  const brokers = openBrokers(config.brokers, { warn: (o, m) => logger.warn(o, m), info: (o, m) => logger.warn(o, m) });
  const brokerDestinations = brokers.map((broker) => brokerDestination(broker, config, records));
  const dispatcher = new EventDispatcher({
    records,
    destinations: async () => [...brokerDestinations, ...(await options.webhooks())],
    settings: config.delivery,
    logger,
    onAttempt: (kind, result, seconds) => metrics.eventAttempt(kind, result, seconds),
  });
  dispatcher.start();
  const prune = setInterval(() => {
    records
      .pruneDeliveries(Date.now() - config.delivery.logDays * 86_400_000)
      .catch((err: unknown) => logger.warn({ err }, 'events: pruning the delivery log failed; the next hour tries again'));
  }, PRUNE_INTERVAL_MS);
  prune.unref();
  return {
    dispatcher,
    async close() {
      clearInterval(prune);
      await dispatcher.stop();
      await Promise.all(brokers.map((broker) => broker.close().catch(() => undefined)));
    },
  };
}

/**
 * A broker whose setting is gone is a destination removed: its positions go, so that the day it is
 * configured again it starts at each chain's head, as a webhook made again does, not with the
 * backlog of every day it was away.
 */
async function forgetRemovedBrokers(config: EventsConfig, records: EventRecords, logger: Logger): Promise<void> {
  const configured = new Set(
    Object.entries({ EVENTS_NATS_URL: config.brokers.natsUrl, EVENTS_AMQP_URL: config.brokers.amqpUrl, EVENTS_REDIS_URL: config.brokers.redisUrl })
      .filter(([, url]) => url !== undefined)
      .map(([name]) => name),
  );
  for (const destination of await records.knownDestinations()) {
    if (destination in KIND && !configured.has(destination)) {
      await records.forgetDestination(destination);
      logger.warn({ destination }, 'events: a broker no longer configured was removed; configured again, it starts at each chain head');
    }
  }
}

/** A broker as the dispatcher delivers to it: every chain, the results EVENTS_BROKER_RESULTS names. */
function brokerDestination(broker: EventBroker, config: EventsConfig, records: EventRecords): Destination {
  const filter = { types: [], channels: [], folders: [], results: config.brokers.results };
  return {
    key: broker.setting,
    kind: KIND[broker.setting] ?? 'broker',
    streams: (now) => records.everyChainStream(broker.setting, now),
    accepts: (event: AuditEvent) => accepts(filter, event),
    async send(event, timeoutMs) {
      const started = Date.now();
      try {
        await broker.publish(event, timeoutMs);
        return { ok: true, httpStatus: null, error: null, latencyMs: Date.now() - started };
      } catch (error) {
        return {
          ok: false,
          httpStatus: null,
          error: String((error as Error).message ?? error).slice(0, 600),
          latencyMs: Date.now() - started,
        };
      }
    },
  };
}
