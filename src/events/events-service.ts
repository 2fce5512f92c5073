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
export function startEvents(options: {
  config: EventsConfig;
  records: EventRecords;
  webhooks: () => Promise<Destination[]>;
  logger: Logger;
  metrics: Metrics;
}): Events {
  const { config, records, logger, metrics } = options;
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
