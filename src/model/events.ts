import type { AuditResult, ChainedAuditEvent } from './audit.ts';
import type { Page, PageRequest } from './paging.ts';

/**
 * Events out (docs/events.md): what the delivery of a tenant's audit chain to webhooks and brokers
 * keeps in the metadata store. The events themselves are the chain's entries, never copied.
 */

/** The key of the cursor of events that belong to no channel (an admin's change, an invitation). */
export const NO_CHANNEL_KEY = '';

/** A tenant's webhook as stored: its URL and secrets sealed under SECRETS_KEY. */
export interface WebhookRecord {
  id: string; // whk_…
  tenantId: string;
  /** The admin who made it: it carries only what that admin may read, and stops while it may read nothing. */
  createdBy: string;
  urlSealed: string;
  /** The URL with its user info and query values as ***: what answers and the audit log show. */
  urlShown: string;
  types: string[];
  channels: string[];
  folders: string[];
  results: AuditResult[];
  paused: boolean;
  secretSealed: string;
  previousSecretSealed: string | null;
  previousSecretUntil: number | null;
  secretRotatedAt: number | null;
  revision: number;
  createdAt: number;
  updatedAt: number;
}

export type WebhookChanges = Partial<
  Pick<
    WebhookRecord,
    | 'urlSealed'
    | 'urlShown'
    | 'types'
    | 'channels'
    | 'folders'
    | 'results'
    | 'paused'
    | 'secretSealed'
    | 'previousSecretSealed'
    | 'previousSecretUntil'
    | 'secretRotatedAt'
  >
>;

/** Where one destination stands in one chain. */
export interface EventStream {
  destination: string;
  tenantId: string;
  startSeq: number;
  scannedSeq: number;
  /** Every event at or below it was delivered or dead-lettered. */
  lowWater: number;
  /** The chain's head when read with it (0 before any entry): nothing to scan while scannedSeq has reached it. */
  headSeq: number;
}

/** One (destination, chain, channel) pair: delivered in order, one event in flight, by one instance at a time. */
export interface EventCursor {
  destination: string;
  tenantId: string;
  channelKey: string;
  lastSeq: number;
  seenSeq: number;
  attempts: number;
  firstFailureAt: number | null;
  nextAttemptAt: number | null;
  leaseToken: string | null;
  leaseUntil: number | null;
}

export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event a destination took up, as the delivery log shows it. */
export interface DeliveryRecord {
  id: string; // dlv_…
  destination: string;
  tenantId: string;
  channelKey: string;
  seq: number;
  eventId: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number | null;
  nextAttemptAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** What an attempt at one event came to, to record with the cursor's move. */
export interface DeliveryOutcome {
  /** The event's place; null when the pair only skipped events its destination does not take. */
  event: { seq: number; eventId: string; type: string } | null;
  /** The cursor after the attempt. */
  lastSeq: number;
  attempts: number;
  firstFailureAt: number | null;
  nextAttemptAt: number | null;
  status: DeliveryStatus | null;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number | null;
  /** The lease to hold on for (the pair goes on), or null to let the pair go. */
  leaseUntil: number | null;
  at: number;
}

export interface EventRecords {
  /** A webhook and its stream into its tenant's chain, from `startSeq`. */
  insertWebhook(webhook: WebhookRecord, startSeq: number): Promise<void>;
  getWebhook(id: string): Promise<WebhookRecord | undefined>;
  listWebhooks(tenantId: string, page: PageRequest): Promise<Page<WebhookRecord>>;
  /** Every webhook of every tenant, for the delivery loop. */
  allWebhooks(): Promise<WebhookRecord[]>;
  /** Applies `changes` if the webhook is still at `revision`; false otherwise. Bumps the revision. */
  updateWebhook(id: string, revision: number, changes: WebhookChanges, at: number): Promise<boolean>;
  /** The webhook, its streams, cursors and delivery log. */
  deleteWebhook(id: string): Promise<boolean>;
  /** Every destination (webhook or broker setting) that has a position in some chain. */
  knownDestinations(): Promise<string[]>;
  /** A destination's positions and delivery log: made again, it starts at each chain's head. */
  forgetDestination(destination: string): Promise<void>;

  /**
   * The streams of a destination that carries every chain (a broker): made at each chain's head the
   * first time the destination is seen, and from each new chain's start after that.
   */
  everyChainStream(destination: string, now: number): Promise<EventStream[]>;
  streamOf(destination: string, tenantId: string): Promise<EventStream | undefined>;
  /** Up to `limit` entries of the chain after `afterSeq`, oldest first. */
  chainAfter(tenantId: string, afterSeq: number, limit: number): Promise<ChainedAuditEvent[]>;
  /** Up to `limit` entries of one channel's part of the chain after `afterSeq`, oldest first. */
  channelAfter(tenantId: string, channelKey: string, afterSeq: number, limit: number): Promise<ChainedAuditEvent[]>;
  /**
   * The stream looked through up to `scannedSeq`: the channels with events to send (their highest
   * seq) get or update their cursor; the stream's low water is recomputed.
   */
  recordScan(stream: EventStream, scannedSeq: number, seen: ReadonlyMap<string, number>, now: number): Promise<void>;
  /** The chains in which the destination has pairs with an attempt due now and no live lease: a read, no write. */
  dueChains(destination: string, now: number): Promise<Set<string>>;
  /** Leases up to `limit` pairs of the stream with events to send and no attempt due later; none another instance holds. */
  claimCursors(
    destination: string,
    tenantId: string,
    token: string,
    now: number,
    leaseUntil: number,
    limit: number,
  ): Promise<EventCursor[]>;
  /** Records an attempt and moves the cursor, while the lease is still `token`'s: false once it is not. */
  recordOutcome(cursor: EventCursor, token: string, outcome: DeliveryOutcome): Promise<boolean>;
  /** A dead delivery tried again by hand: its new state. */
  updateDelivery(
    id: string,
    changes: Pick<DeliveryRecord, 'status' | 'attempts' | 'httpStatus' | 'error' | 'latencyMs' | 'updatedAt'>,
  ): Promise<void>;
  /** Makes a waiting pair's next attempt due now. */
  retryNow(destination: string, tenantId: string, channelKey: string, now: number): Promise<void>;
  getDelivery(id: string): Promise<DeliveryRecord | undefined>;
  listDeliveries(destination: string, page: PageRequest, status?: DeliveryStatus): Promise<Page<DeliveryRecord>>;
  /** The last delivery of each destination, for the webhooks' listing. */
  lastDeliveries(destinations: readonly string[]): Promise<Map<string, DeliveryRecord>>;
  /** Removes delivered and dead deliveries last updated before `before`. */
  pruneDeliveries(before: number): Promise<number>;
}
