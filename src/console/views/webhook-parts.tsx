import type { Webhook, WebhookDeliveryStatus } from '../../client/index.ts';
import { Time } from '../ui/time.tsx';

/**
 * How a webhook and its deliveries read on the list, on the webhook's page and in its delivery log:
 * each fact said in words that stand alone, since on a phone the rows have no column headers.
 */

const STATE_LABEL = { active: 'Active', paused: 'Paused', stopped: 'Stopped' } as const;

/** Active, paused by a manager, or stopped (its creator may read nothing now), and why. */
export function WebhookState({ webhook }: { webhook: Webhook }) {
  return (
    <>
      <span class={`badge badge-webhook-${webhook.state}`}>{STATE_LABEL[webhook.state]}</span>
      {webhook.state === 'stopped' && webhook.stoppedReason && <span class="block muted">Stopped: {webhook.stoppedReason}</span>}
    </>
  );
}

const DELIVERY_LABEL: Record<WebhookDeliveryStatus, string> = {
  pending: 'Pending',
  retrying: 'Retrying',
  delivered: 'Delivered',
  dead: 'Dead',
};

export function DeliveryStatus({ status }: { status: WebhookDeliveryStatus }) {
  return <span class={`badge badge-delivery-${status}`}>{DELIVERY_LABEL[status]}</span>;
}

/** "HTTP 204", or that no answer came (a refused connection, a timeout). */
export function httpStatusText(status: number | null): string {
  return status === null ? 'no answer' : `HTTP ${status}`;
}

/** The newest delivery's status, its receiver's answer and when; nothing yet for a new webhook. */
export function LastDelivery({ webhook }: { webhook: Webhook }) {
  const last = webhook.lastDelivery;
  if (!last) return <span class="muted">None yet</span>;
  return (
    <>
      <DeliveryStatus status={last.status} /> <span class="unbroken">{httpStatusText(last.httpStatus)}</span>
      <span class="block">
        <Time value={last.at} />
      </span>
    </>
  );
}

/** How many events of the tenant's chain it has still to deliver (or to skip, filtered out). */
export function eventsBehind(webhook: Webhook): number {
  return Math.max(0, webhook.headSeq - webhook.lowWaterSeq);
}

export function Behind({ webhook }: { webhook: Webhook }) {
  const behind = eventsBehind(webhook);
  return (
    <span title={`Delivered up to event ${webhook.lowWaterSeq} of ${webhook.headSeq}`}>
      {behind === 0 ? 'Up to date' : `${behind} ${behind === 1 ? 'event' : 'events'} behind`}
    </span>
  );
}

/** The types it takes, or every type; then any narrowing by channel, folder or result. */
export function EventFilters({ webhook, channelName }: { webhook: Webhook; channelName(id: string): string }) {
  const narrowing = [
    webhook.channels.length > 0 && `channels ${webhook.channels.map(channelName).join(', ')}`,
    webhook.folders.length > 0 && `folders ${webhook.folders.join(', ')}`,
    // ok alone is the default: only a receiver that takes refusals or failures says so.
    webhook.results.join() !== 'ok' && `results ${webhook.results.join(', ')}`,
  ].filter(Boolean);
  return (
    <>
      {webhook.types.length === 0 ? (
        'Every type'
      ) : (
        <ul class="chips" aria-label="Event types">
          {webhook.types.map((type) => (
            <li key={type} class="chip">
              {type}
            </li>
          ))}
        </ul>
      )}
      {narrowing.length > 0 && <span class="block muted">Only {narrowing.join('; ')}</span>}
    </>
  );
}

/** "upload, restore, backup.*" as the list the API takes: empty parts dropped. */
export function listOf(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
