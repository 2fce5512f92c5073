import { canonicalJson } from '../audit-chain/canonical-json.ts';
import { storedEntry } from '../audit-chain/chain-entry.ts';
import type { ChainedAuditEvent } from '../model/audit.ts';
import type { OutgoingEvent } from './brokers/event-broker.ts';

/**
 * An event as every destination receives it (docs/events.md, "The event"): the audit entry exactly
 * as `GET /api/audit/export` shows it, wrapped as { id, type, tenantId, channelId?, time, data }.
 * `id` is the entry's hash, so a redelivery carries the same id and a consumer deduplicates by it;
 * the body is canonical JSON, so a redelivery carries the same bytes too.
 */
export function outgoingEvent(chained: ChainedAuditEvent): OutgoingEvent {
  const entry = storedEntry(chained);
  const { event } = chained;
  const envelope = {
    id: entry.hash,
    type: event.action,
    tenantId: event.tenantId,
    ...(event.channelId === null ? {} : { channelId: event.channelId }),
    time: new Date(event.createdAt).toISOString(),
    data: entry,
  };
  return { id: entry.hash, type: event.action, tenantId: event.tenantId, channelId: event.channelId, body: canonicalJson(envelope) };
}
