import { type OutboundAllow, parseOutboundAllow } from '../outbound/outbound-allow.ts';
import type { EnvReader } from './env-readers.ts';

/** Events out (docs/events.md): the brokers the operator names, and how every destination is delivered to. */
export interface EventsConfig {
  /** Hosts and ranges a tenant's outbound URL may reach though not public (OUTBOUND_ALLOW). */
  outboundAllow: OutboundAllow;
  brokers: BrokerConfig;
  delivery: DeliveryConfig;
}

export interface BrokerConfig {
  natsUrl: string | undefined;
  natsStream: string;
  amqpUrl: string | undefined;
  amqpExchange: string;
  redisUrl: string | undefined;
  redisMaxLen: number;
  /** The first token of every subject and routing key, and of every stream key (EVENTS_PREFIX). */
  prefix: string;
  /** The results a broker carries (EVENTS_BROKER_RESULTS): a security pipeline may want refusals too. */
  results: ('ok' | 'refused' | 'failed')[];
}

export interface DeliveryConfig {
  /** How often an instance looks for events to deliver (EVENTS_POLL_INTERVAL, milliseconds). */
  pollMs: number;
  /** One attempt's deadline (EVENTS_TIMEOUT, milliseconds). */
  timeoutMs: number;
  /** How long an event is retried before it is dead-lettered (EVENTS_RETRY_FOR, seconds). */
  retryForSeconds: number;
  /** The longest pause between two attempts (EVENTS_BACKOFF_MAX, milliseconds). */
  backoffMaxMs: number;
  /** Deliveries in flight at once on one instance, over every destination (EVENTS_CONCURRENCY). */
  concurrency: number;
  /** How long a rotated webhook secret keeps signing beside the new one (WEBHOOK_SECRET_GRACE, seconds). */
  secretGraceSeconds: number;
  /** Days the delivery log keeps a delivered or dead-lettered event (EVENTS_LOG_DAYS). */
  logDays: number;
}

const RESULTS = ['ok', 'refused', 'failed'] as const;
// Dots separate a subject's tokens; * and > are NATS wildcards; blanks end a routing key in tools.
const PREFIX = /^[A-Za-z0-9_-]{1,64}$/;
// A JetStream stream name may not hold '.', which an AMQP exchange name may.
const STREAM = /^[A-Za-z0-9_-]{1,100}$/;
const EXCHANGE = /^[A-Za-z0-9_.-]{1,100}$/;

export function readEventsConfig(read: EnvReader): EventsConfig {
  let outboundAllow: OutboundAllow;
  try {
    outboundAllow = parseOutboundAllow(read.raw('OUTBOUND_ALLOW'));
  } catch (error) {
    read.problems.push((error as Error).message);
    outboundAllow = parseOutboundAllow(undefined);
  }
  const name = (setting: string, fallback: string, pattern: RegExp, what: string): string => {
    const value = read.string(setting, fallback);
    if (pattern.test(value)) return value;
    read.problems.push(`${setting} must be ${what} (got ${JSON.stringify(value.slice(0, 80))})`);
    return fallback;
  };
  const results = read.list('EVENTS_BROKER_RESULTS') ?? ['ok'];
  for (const result of results) {
    if (!(RESULTS as readonly string[]).includes(result)) {
      read.problems.push(`EVENTS_BROKER_RESULTS lists ${JSON.stringify(result)}: each must be one of ${RESULTS.join(', ')}`);
    }
  }
  return {
    outboundAllow,
    brokers: {
      natsUrl: read.url('EVENTS_NATS_URL', ['nats:', 'tls:'])?.href,
      natsStream: name('EVENTS_NATS_STREAM', 'WALLET_ADMIN_EVENTS', STREAM, 'letters, digits, _ and - (at most 100)'),
      amqpUrl: read.url('EVENTS_AMQP_URL', ['amqp:', 'amqps:'])?.href,
      amqpExchange: name('EVENTS_AMQP_EXCHANGE', 'wallet-admin.events', EXCHANGE, 'letters, digits, _ . - (at most 100)'),
      redisUrl: read.url('EVENTS_REDIS_URL', ['redis:', 'rediss:'])?.href,
      redisMaxLen: read.integer('EVENTS_REDIS_MAXLEN', 1_000_000, 1000, 1_000_000_000),
      prefix: name('EVENTS_PREFIX', 'wallet-admin', PREFIX, 'letters, digits, _ and - (at most 64): it is one token of every subject'),
      results: [...new Set(results.filter((r): r is (typeof RESULTS)[number] => (RESULTS as readonly string[]).includes(r)))],
    },
    delivery: {
      pollMs: read.integer('EVENTS_POLL_INTERVAL', 500, 20, 60_000),
      timeoutMs: read.integer('EVENTS_TIMEOUT', 10_000, 100, 120_000),
      retryForSeconds: read.seconds('EVENTS_RETRY_FOR', 86_400, 1),
      backoffMaxMs: read.integer('EVENTS_BACKOFF_MAX', 300_000, 10, 3_600_000),
      concurrency: read.integer('EVENTS_CONCURRENCY', 8, 1, 256),
      secretGraceSeconds: read.seconds('WEBHOOK_SECRET_GRACE', 86_400, 0),
      logDays: read.integer('EVENTS_LOG_DAYS', 7, 1, 3650),
    },
  };
}
