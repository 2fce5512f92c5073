import type { AuditResult } from '../model/audit.ts';
import type { DeliveryRecord, DeliveryStatus, WebhookRecord } from '../model/events.ts';

/** A webhook as the API answers it (docs/events.md): never its secret, its URL as its managers may see it. */
export interface WebhookView {
  id: string;
  url: string;
  types: string[];
  channels: string[];
  folders: string[];
  results: AuditResult[];
  paused: boolean;
  /** active; paused by a manager; stopped while its creator may read nothing (suspended, removed, or without audit:read). */
  state: 'active' | 'paused' | 'stopped';
  stoppedReason: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  secretRotated: string | null;
  /** Every event at or below it was delivered or dead-lettered. */
  lowWaterSeq: number;
  /** The tenant chain's head: lowWaterSeq behind it is what is still to deliver (or to skip). */
  headSeq: number;
  lastDelivery: { at: string; status: DeliveryStatus; httpStatus: number | null } | null;
}

export interface DeliveryView {
  id: string;
  eventId: string;
  type: string;
  seq: number;
  channelId: string | null;
  status: DeliveryStatus;
  attempts: number;
  httpStatus: number | null;
  error: string | null;
  latencyMs: number | null;
  createdAt: string;
  updatedAt: string;
  nextAttempt: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function deliveryView(d: DeliveryRecord): DeliveryView {
  return {
    id: d.id,
    eventId: d.eventId,
    type: d.type,
    seq: d.seq,
    channelId: d.channelKey === '' ? null : d.channelKey,
    status: d.status,
    attempts: d.attempts,
    httpStatus: d.httpStatus,
    error: d.error,
    latencyMs: d.latencyMs,
    createdAt: iso(d.createdAt),
    updatedAt: iso(d.updatedAt),
    nextAttempt: d.status === 'retrying' && d.nextAttemptAt !== null ? iso(d.nextAttemptAt) : null,
  };
}

export function webhookView(
  w: WebhookRecord,
  standing: { stoppedReason: string | null; lowWaterSeq: number; headSeq: number; last: DeliveryRecord | undefined },
): WebhookView {
  return {
    id: w.id,
    url: w.urlShown,
    types: w.types,
    channels: w.channels,
    folders: w.folders,
    results: w.results,
    paused: w.paused,
    state: w.paused ? 'paused' : standing.stoppedReason === null ? 'active' : 'stopped',
    stoppedReason: standing.stoppedReason,
    createdBy: w.createdBy,
    createdAt: iso(w.createdAt),
    updatedAt: iso(w.updatedAt),
    secretRotated: w.secretRotatedAt === null ? null : iso(w.secretRotatedAt),
    lowWaterSeq: standing.lowWaterSeq,
    headSeq: standing.headSeq,
    lastDelivery:
      standing.last === undefined
        ? null
        : { at: iso(standing.last.updatedAt), status: standing.last.status, httpStatus: standing.last.httpStatus },
  };
}

/** What the audit log records of a webhook: never a secret, the URL redacted (the chain is immutable and shipped off-site). */
export function webhookSnapshot(w: WebhookRecord): Record<string, unknown> {
  return {
    id: w.id,
    url: w.urlShown,
    types: w.types,
    channels: w.channels,
    folders: w.folders,
    results: w.results,
    paused: w.paused,
    secretRotatedAt: w.secretRotatedAt,
  };
}
