import { openAmqpBroker } from './amqp-broker.ts';
import { type BrokerLogger, type EventBroker, SILENT_LOGGER } from './event-broker.ts';
import { openNatsBroker } from './nats-broker.ts';
import { openRedisBroker } from './redis-broker.ts';

/** The event-delivery settings that name brokers; a broker whose URL is unset is not used. */
export interface BrokerSettings {
  /** EVENTS_NATS_URL */
  natsUrl?: string;
  /** The JetStream stream's name (created when missing). */
  natsStream: string;
  /** EVENTS_AMQP_URL */
  amqpUrl?: string;
  /** The durable topic exchange's name (declared when missing). */
  amqpExchange: string;
  /** EVENTS_REDIS_URL */
  redisUrl?: string;
  /** About how many entries each Redis stream keeps. */
  redisMaxLen: number;
  /** First token(s) of every NATS subject, AMQP routing key and Redis stream key. */
  prefix: string;
}

/**
 * A publisher for each broker configured, in a fixed order (NATS, AMQP, Redis). None connects
 * here: each does on its first publish, so an unreachable broker holds up neither start-up nor the
 * others. A malformed setting (a name with a wildcard, a URL that does not parse) throws now.
 */
export function openBrokers(settings: BrokerSettings, logger: BrokerLogger = SILENT_LOGGER): EventBroker[] {
  const brokers: EventBroker[] = [];
  if (settings.natsUrl) {
    brokers.push(openNatsBroker({ url: settings.natsUrl, stream: settings.natsStream, subjectPrefix: settings.prefix, logger }));
  }
  if (settings.amqpUrl) {
    brokers.push(openAmqpBroker({ url: settings.amqpUrl, exchange: settings.amqpExchange, routingKeyPrefix: settings.prefix, logger }));
  }
  if (settings.redisUrl) {
    brokers.push(openRedisBroker({ url: settings.redisUrl, streamPrefix: settings.prefix, maxLen: settings.redisMaxLen, logger }));
  }
  return brokers;
}
