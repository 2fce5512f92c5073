import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

const PREFIX = 'wallet_admin_';
const MAX_REQUEST_SERIES = 10_000;
/** How often the event loop's delay is sampled for the nodejs_eventloop_lag metrics. */
const EVENT_LOOP_SAMPLE_MS = 100;
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Cumulative counts kept elsewhere (the signature cache, the eth_getCode cache), read when metrics are scraped. */
interface CacheCounts {
  readonly hits: number;
  readonly misses: number;
}

/**
 * The service's Prometheus metrics, in a registry of its own (several services in one process,
 * as in tests, never share counts). Plain functions record; nothing here knows Fastify.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status_code'>;
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status_code'>;
  private readonly authFailures: Counter<'code'>;
  private readonly errors: Counter<'code'>;
  private readonly writes: Counter<'action' | 'result'>;
  private readonly writeSeconds: Histogram<'action'>;
  private readonly writeBytes: Counter<'action'>;
  private readonly rpcCalls: Counter<'chain' | 'method' | 'result'>;
  private readonly rpcSeconds: Histogram<'chain' | 'method'>;
  private readonly eventAttempts: Counter<'kind' | 'result'>;
  private readonly eventSeconds: Histogram<'kind'>;
  /** Label sets already resolved: prom-client hashes the labels on every call otherwise. */
  private readonly requestSeries = new Map<string, { count: { inc(): void }; seconds: { observe(value: number): void } }>();

  constructor() {
    const registers = [this.registry];
    // The event loop's delay is sampled every EVENT_LOOP_SAMPLE_MS: prom-client's default (10 ms)
    // wakes an idle service 100 times a second, most of what it spends idle (bench: idle-cpu).
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    this.requests = new Counter({
      name: `${PREFIX}http_requests_total`,
      help: 'HTTP requests by route and status',
      labelNames: ['method', 'route', 'status_code'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: `${PREFIX}http_request_duration_seconds`,
      help: 'HTTP request latency by route and status',
      labelNames: ['method', 'route', 'status_code'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.authFailures = new Counter({
      name: `${PREFIX}auth_failures_total`,
      help: 'Refused authentications by error code',
      labelNames: ['code'],
      registers,
    });
    this.errors = new Counter({
      name: `${PREFIX}errors_total`,
      help: 'Error answers by code (database and storage outages included)',
      labelNames: ['code'],
      registers,
    });
    this.writes = new Counter({
      name: `${PREFIX}file_operations_total`,
      help: 'Uploads, deletes, backups and restores by result',
      labelNames: ['action', 'result'],
      registers,
    });
    this.writeSeconds = new Histogram({
      name: `${PREFIX}file_operation_duration_seconds`,
      help: 'Duration of uploads, deletes, backups and restores',
      labelNames: ['action'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.writeBytes = new Counter({
      name: `${PREFIX}file_operation_bytes_total`,
      help: 'Bytes uploaded, backed up and restored',
      labelNames: ['action'],
      registers,
    });
    // Chains are those of AUTH_RPC_URL (or the one its bare URL's node names), methods three.
    this.rpcCalls = new Counter({
      name: `${PREFIX}rpc_calls_total`,
      help: 'JSON-RPC calls of contract-wallet checks by chain, method and result (ok, error, timeout, rejected-busy)',
      labelNames: ['chain', 'method', 'result'],
      registers,
    });
    this.rpcSeconds = new Histogram({
      name: `${PREFIX}rpc_call_duration_seconds`,
      help: 'Latency of JSON-RPC calls sent, by chain and method',
      labelNames: ['chain', 'method'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    // Kinds are few (webhook, nats, amqp, redis): a webhook's id would make a series per webhook.
    this.eventAttempts = new Counter({
      name: `${PREFIX}event_attempts_total`,
      help: 'Attempts to deliver an event by destination kind and result (delivered, retrying, dead)',
      labelNames: ['kind', 'result'],
      registers,
    });
    this.eventSeconds = new Histogram({
      name: `${PREFIX}event_delivery_seconds`,
      help: 'From an event entering the audit chain to its delivery, by destination kind',
      labelNames: ['kind'],
      buckets: DURATION_BUCKETS,
      registers,
    });
  }

  /** Exposes a cache's cumulative hits and misses as `<name>_hits_total` and `<name>_misses_total`. */
  cache(name: string, description: string, counts: CacheCounts): void {
    for (const [kind, read] of [
      ['hits', () => counts.hits],
      ['misses', () => counts.misses],
    ] as const) {
      new Counter({
        name: `${PREFIX}${name}_${kind}_total`,
        help: `${description} ${kind}`,
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    }
  }

  /** A value read when metrics are scraped (the off-site lag, the last check's result). */
  gauge(name: string, description: string, read: () => Promise<number | undefined>): void {
    new Gauge({
      name: `${PREFIX}${name}`,
      help: description,
      registers: [this.registry],
      async collect() {
        const value = await read().catch(() => undefined);
        if (value === undefined) this.reset();
        else this.set(value);
      },
    });
  }

  request(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let series = this.requestSeries.get(key);
    if (series === undefined) {
      const labels = { method, route, status_code: String(status) };
      series = { count: this.requests.labels(labels), seconds: this.requestSeconds.labels(labels) };
      // Routes are templates and methods and statuses few, so this stays small; the cap is a guard.
      if (this.requestSeries.size < MAX_REQUEST_SERIES) this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.seconds.observe(seconds);
  }

  error(code: string, status: number): void {
    this.errors.inc({ code });
    if (status === 401) this.authFailures.inc({ code });
  }

  fileOperation(action: string, result: string, seconds: number, bytes: number | undefined): void {
    this.writes.inc({ action, result });
    this.writeSeconds.observe({ action }, seconds);
    if (bytes !== undefined && result === 'ok') this.writeBytes.inc({ action }, bytes);
  }

  /** `seconds` is undefined for a call never sent (refused while busy, or timed out waiting). */
  rpcCall(chain: string, method: string, result: string, seconds: number | undefined): void {
    this.rpcCalls.inc({ chain, method, result });
    if (seconds !== undefined) this.rpcSeconds.observe({ chain, method }, seconds);
  }

  /** One attempt at an event; `sinceEventSeconds` (from the entry's time) when it was delivered. */
  eventAttempt(kind: string, result: string, sinceEventSeconds: number | undefined): void {
    this.eventAttempts.inc({ kind, result });
    if (sinceEventSeconds !== undefined) this.eventSeconds.observe({ kind }, sinceEventSeconds);
  }
}
