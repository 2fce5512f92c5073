import { randomBytes } from 'node:crypto';
import type { DeliveryConfig } from '../config/events-config.ts';
import type { Logger } from '../logging/logger.ts';
import type { AuditEvent, ChainedAuditEvent } from '../model/audit.ts';
import { type DeliveryOutcome, type EventCursor, type EventRecords, type EventStream, NO_CHANNEL_KEY } from '../model/events.ts';
import type { OutgoingEvent } from './brokers/event-broker.ts';
import { retryDelay } from './delivery-schedule.ts';
import { outgoingEvent } from './event-envelope.ts';

/** What one attempt at one event came to. Never thrown: a destination's failure is an outcome. */
export interface AttemptResult {
  ok: boolean;
  /** A webhook's answer status (also for a failure: a 500, a 302 not followed); null for a broker or no answer. */
  httpStatus: number | null;
  /** A short, secret-free account of a failure (a response excerpt, a network error). */
  error: string | null;
  latencyMs: number;
  /** The start of a webhook's answer body, as kept (a short excerpt). */
  excerpt?: string;
}

/** Where events go: a webhook, or a broker the operator configured. */
export interface Destination {
  /** Its cursors' key: the webhook's id, or the broker's setting name. */
  readonly key: string;
  /** For metrics: webhook, nats, amqp, redis. */
  readonly kind: string;
  /** The chains it reads, each with where it stands. */
  streams(now: number): Promise<EventStream[]>;
  /** Whether it takes this event (filters; a sub-admin's webhook, what its admin may read). */
  accepts(event: AuditEvent): boolean;
  send(event: OutgoingEvent, timeoutMs: number): Promise<AttemptResult>;
}

/** Entries a scan reads at once, and pages per stream and look: a burst is taken up in a few looks. */
const SCAN_PAGE = 500;
const SCAN_PAGES = 4;
const PAIR_READ = 32;
/**
 * How long a pair delivers before it lets its lease go, so that the destination is read anew (a
 * pause, new filters, a rotated secret, a creator suspended). It asks for the next look at once: a
 * busy channel is not paced by the poll interval.
 */
const PAIR_TURN_MS = 2000;

/**
 * Delivers the audit chain's entries to every destination, at least once, in order per
 * (destination, channel) (docs/events.md, "Delivery"). Each look, per destination and chain, it
 * scans the entries after the stream's scan mark for the channels with events the destination takes,
 * then leases the pairs with events due (one instance per pair: the lease is in the database) and
 * delivers each pair's events one at a time, recording each outcome and moving the pair's cursor in
 * one transaction while the lease is still its own. A failure is retried with backoff and jitter for
 * EVENTS_RETRY_FOR, then dead-lettered (logged) and skipped. Each destination has its own slots
 * (EVENTS_CONCURRENCY), so a slow or dead one never holds another's events; nothing here runs on a
 * request's path.
 */
export class EventDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private looking: Promise<void> | undefined;
  private stopping = false;
  /** A turn ended with events left: the next look starts as soon as this one ends. */
  private lookAgain = false;
  /** Pairs in flight per destination key. */
  private readonly inFlight = new Map<string, Set<Promise<void>>>();
  private readonly token = `lease_${randomBytes(12).toString('hex')}`;
  private readonly leaseMs: number;

  constructor(
    private readonly deps: {
      records: EventRecords;
      destinations: () => Promise<Destination[]>;
      settings: DeliveryConfig;
      logger: Logger;
      now?: () => number;
      onAttempt?: (kind: string, result: 'delivered' | 'retrying' | 'dead', sinceEventSeconds: number | undefined) => void;
    },
  ) {
    // A lease outlives one attempt with room for its bookkeeping, so that a slow destination's pair
    // is never taken over while its attempt is still out (two in flight).
    this.leaseMs = deps.settings.timeoutMs + 2000;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  start(): void {
    this.loop();
  }

  private loop(): void {
    if (this.stopping) return;
    this.timer = undefined;
    this.lookAgain = false;
    this.looking = this.look()
      .catch((err: unknown) => this.deps.logger.warn({ err }, 'events: a look for events to deliver failed; the next one tries again'))
      .finally(() => {
        this.looking = undefined;
        if (!this.stopping) this.timer = setTimeout(() => this.loop(), this.lookAgain ? 0 : this.deps.settings.pollMs);
      });
  }

  /** The next look now (or right after the one under way), not a poll interval later. */
  private wake(): void {
    if (this.stopping) return;
    if (this.looking !== undefined) {
      this.lookAgain = true;
      return;
    }
    clearTimeout(this.timer);
    this.loop();
  }

  /** Stops looking and waits for the attempts in flight (each bounded by EVENTS_TIMEOUT). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    await this.looking;
    await Promise.all([...this.inFlight.values()].flatMap((set) => [...set]));
  }

  /** One look over every destination (exposed for tests that step the dispatcher by hand). */
  async look(): Promise<void> {
    const destinations = await this.deps.destinations();
    for (const destination of destinations) {
      if (this.stopping) return;
      try {
        const now = this.now();
        const due = await this.deps.records.dueChains(destination.key, now);
        for (const stream of await destination.streams(now)) {
          // Reads only, for a chain with nothing new and no pair due: an idle look writes nothing.
          const seen = stream.headSeq > stream.scannedSeq ? await this.scan(destination, stream) : false;
          if (seen || due.has(stream.tenantId)) await this.claim(destination, stream.tenantId);
        }
      } catch (err) {
        this.deps.logger.warn(
          { err, destination: destination.key },
          'events: a destination could not be looked at; the next look tries again',
        );
      }
    }
  }

  /** Finds the channels of the stream's chain with events the destination takes, past its scan mark. */
  private async scan(destination: Destination, stream: EventStream): Promise<boolean> {
    const { records } = this.deps;
    let current = stream;
    let found = false;
    for (let page = 0; page < SCAN_PAGES; page++) {
      const entries = await records.chainAfter(current.tenantId, current.scannedSeq, SCAN_PAGE);
      const seen = new Map<string, number>();
      for (const chained of entries) {
        if (destination.accepts(chained.event)) seen.set(chained.event.channelId ?? NO_CHANNEL_KEY, chained.seq);
      }
      const scannedSeq = entries.length > 0 ? entries[entries.length - 1]!.seq : current.scannedSeq;
      await records.recordScan(current, scannedSeq, seen, this.now());
      found ||= seen.size > 0;
      if (entries.length < SCAN_PAGE) return found;
      current = { ...current, scannedSeq };
    }
    return found;
  }

  private async claim(destination: Destination, tenantId: string): Promise<void> {
    const running = this.inFlight.get(destination.key) ?? new Set<Promise<void>>();
    this.inFlight.set(destination.key, running);
    const free = this.deps.settings.concurrency - running.size;
    if (free <= 0 || this.stopping) return;
    const now = this.now();
    const cursors = await this.deps.records.claimCursors(destination.key, tenantId, this.token, now, now + this.leaseMs, free);
    for (const cursor of cursors) {
      const pair = this.deliverPair(destination, cursor)
        .catch((err: unknown) =>
          this.deps.logger.warn(
            { err, destination: destination.key, tenantId, channel: cursor.channelKey || null },
            'events: a delivery stopped short; its lease lapses and the pair is taken up again',
          ),
        )
        .finally(() => running.delete(pair));
      running.add(pair);
    }
  }

  /** The pair's events in order, one in flight, while the lease is this instance's. */
  private async deliverPair(destination: Destination, claimed: EventCursor): Promise<void> {
    const { records } = this.deps;
    let cursor = claimed;
    const turnEnds = this.now() + PAIR_TURN_MS;
    while (!this.stopping) {
      if (this.now() > turnEnds) {
        await this.move(cursor, { ...this.unchanged(cursor), leaseUntil: null });
        this.wake();
        return;
      }
      const entries = await records.channelAfter(cursor.tenantId, cursor.channelKey, cursor.lastSeq, PAIR_READ);
      if (entries.length === 0) {
        await this.move(cursor, { ...this.unchanged(cursor), leaseUntil: null });
        return;
      }
      let skipTo = cursor.lastSeq;
      for (const chained of entries) {
        if (this.stopping) break;
        if (!destination.accepts(chained.event)) {
          skipTo = chained.seq;
          continue;
        }
        const outcome = await this.attempt(destination, cursor, chained, skipTo);
        const moved = await this.move(cursor, outcome);
        if (moved === undefined) return;
        cursor = moved;
        if (outcome.status === 'retrying') return;
        skipTo = cursor.lastSeq;
      }
      if (skipTo > cursor.lastSeq) {
        const moved = await this.move(cursor, { ...this.unchanged(cursor), lastSeq: skipTo });
        if (moved === undefined) return;
        cursor = moved;
      }
    }
    await this.move(cursor, { ...this.unchanged(cursor), leaseUntil: null });
  }

  private async attempt(
    destination: Destination,
    cursor: EventCursor,
    chained: ChainedAuditEvent,
    skipTo: number,
  ): Promise<DeliveryOutcome> {
    const { settings } = this.deps;
    const event = outgoingEvent(chained);
    const result = await destination.send(event, settings.timeoutMs).catch(
      (error: unknown): AttemptResult => ({
        ok: false,
        httpStatus: null,
        error: String((error as Error)?.message ?? error).slice(0, 300),
        latencyMs: 0,
      }),
    );
    const at = this.now();
    const done = { seq: chained.seq, eventId: event.id, type: event.type };
    const common = { event: done, httpStatus: result.httpStatus, error: result.error, latencyMs: result.latencyMs, at };
    if (result.ok) {
      this.deps.onAttempt?.(destination.kind, 'delivered', (at - chained.event.createdAt) / 1000);
      return {
        ...common,
        lastSeq: chained.seq,
        attempts: 0,
        firstFailureAt: null,
        nextAttemptAt: null,
        status: 'delivered',
        leaseUntil: at + this.leaseMs,
      };
    }
    const attempts = cursor.attempts + 1;
    const firstFailureAt = cursor.firstFailureAt ?? at;
    if (at - firstFailureAt >= settings.retryForSeconds * 1000) {
      this.deps.onAttempt?.(destination.kind, 'dead', undefined);
      this.deps.logger.warn(
        { destination: destination.key, tenantId: cursor.tenantId, seq: chained.seq, eventId: event.id, attempts, error: result.error },
        'events: an event was dead-lettered after EVENTS_RETRY_FOR of failed attempts; later events go on',
      );
      return {
        ...common,
        lastSeq: chained.seq,
        attempts: 0,
        firstFailureAt: null,
        nextAttemptAt: null,
        status: 'dead',
        leaseUntil: at + this.leaseMs,
      };
    }
    this.deps.onAttempt?.(destination.kind, 'retrying', undefined);
    const nextAttemptAt = at + retryDelay(attempts, settings.backoffMaxMs);
    // The events before it that the destination does not take are done with, whatever comes of it.
    return { ...common, lastSeq: skipTo, attempts, firstFailureAt, nextAttemptAt, status: 'retrying', leaseUntil: null };
  }

  private unchanged(cursor: EventCursor): DeliveryOutcome {
    return {
      event: null,
      lastSeq: cursor.lastSeq,
      attempts: cursor.attempts,
      firstFailureAt: cursor.firstFailureAt,
      nextAttemptAt: cursor.nextAttemptAt,
      status: null,
      httpStatus: null,
      error: null,
      latencyMs: null,
      leaseUntil: this.now() + this.leaseMs,
      at: this.now(),
    };
  }

  /** Records the outcome; undefined when the lease is no longer ours (another instance took the pair over). */
  private async move(cursor: EventCursor, outcome: DeliveryOutcome): Promise<EventCursor | undefined> {
    if (!(await this.deps.records.recordOutcome(cursor, this.token, outcome))) return undefined;
    return {
      ...cursor,
      lastSeq: outcome.lastSeq,
      attempts: outcome.attempts,
      firstFailureAt: outcome.firstFailureAt,
      nextAttemptAt: outcome.nextAttemptAt,
    };
  }
}
