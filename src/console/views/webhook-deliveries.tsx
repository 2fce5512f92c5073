import { useEffect, useState } from 'preact/hooks';
import type { WebhookDelivery, WebhookDeliveryStatus } from '../../client/index.ts';
import { ProblemNotice } from '../ui/problem-notice.tsx';
import { RowButton } from '../ui/row-button.tsx';
import { Time } from '../ui/time.tsx';
import type { ViewContext } from './context.ts';
import { type DeliveryLog, useDeliveryLog } from './delivery-log.ts';
import { DeliveryStatus, httpStatusText } from './webhook-parts.tsx';

/** The statuses the log is filtered by; pending ones are only ever a moment old, and listed under All. */
const FILTERS: { value: WebhookDeliveryStatus | ''; label: string }[] = [
  { value: '', label: 'All' },
  { value: 'retrying', label: 'Retrying' },
  { value: 'dead', label: 'Dead' },
  { value: 'delivered', label: 'Delivered' },
];

interface DeliveriesCardProps {
  ctx: ViewContext;
  webhookId: string;
  /** Raised by the page to have the newest deliveries asked for again (every few seconds, and on Refresh). */
  round: number;
  /** A retry changed what the webhook says of itself (its last delivery, how far behind it is). */
  onChanged(): void;
}

/** A webhook's delivery log, newest first: filtered by status, grown by "Load more", a dead or waiting delivery retried. */
export function DeliveriesCard({ ctx, webhookId, round, onChanged }: DeliveriesCardProps) {
  const [status, setStatus] = useState<WebhookDeliveryStatus>();
  const log = useDeliveryLog(ctx.client, webhookId, status, (error) => ctx.session.noticeError(error));
  const [retrying, setRetrying] = useState<string>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (round > 0) void log.refresh();
  }, [round]);

  const retry = async (delivery: WebhookDelivery) => {
    if (retrying) return;
    setRetrying(delivery.id);
    setError(undefined);
    try {
      const after = await ctx.client.retryWebhookDelivery(webhookId, delivery.id);
      log.replace(after);
      ctx.announce(retriedMessage(delivery, after));
      onChanged();
    } catch (failure) {
      ctx.session.noticeError(failure);
      setError(failure);
    } finally {
      setRetrying(undefined);
    }
  };

  return (
    <section class="card" aria-labelledby="deliveries-title">
      <div class="section-head">
        <h2 id="deliveries-title">Deliveries</h2>
        <div class="section-tools">
          <label class="field field-inline">
            <span>Status</span>
            <select
              value={status ?? ''}
              onChange={(event) => setStatus(((event.target as HTMLSelectElement).value || undefined) as WebhookDeliveryStatus | undefined)}
            >
              {FILTERS.map((filter) => (
                <option key={filter.value} value={filter.value}>
                  {filter.label}
                </option>
              ))}
            </select>
          </label>
          <button type="button" class="button" onClick={onChanged}>
            Refresh
          </button>
        </div>
      </div>
      <p class="muted">
        Newest first, refreshed every few seconds. A failing delivery is retried for a day, then dead: retry it once the receiver is back.
      </p>
      <ProblemNotice error={error ?? log.error} />
      <DeliveryTable log={log} status={status} channelName={ctx.channelName} retrying={retrying} onRetry={retry} />
    </section>
  );
}

function DeliveryTable({
  log,
  status,
  channelName,
  retrying,
  onRetry,
}: {
  log: DeliveryLog;
  status: WebhookDeliveryStatus | undefined;
  channelName(id: string): string;
  /** The delivery whose retry is under way. */
  retrying: string | undefined;
  onRetry(delivery: WebhookDelivery): void;
}) {
  const { items } = log;
  if (items === undefined) return log.error ? null : <p aria-live="polite">Loading deliveries…</p>;
  if (items.length === 0) {
    return (
      <p>
        {status
          ? `No delivery is ${status}.`
          : 'No delivery yet: the next event this webhook takes is posted within moments. Send test event tries the receiver now (a test is not logged).'}
      </p>
    );
  }
  return (
    <>
      <div class="table-wrap">
        <table class="table deliveries-table stacked-table">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col" class="num">
                Seq
              </th>
              <th scope="col">Status</th>
              <th scope="col" class="num">
                Attempts
              </th>
              <th scope="col" class="num">
                HTTP status
              </th>
              <th scope="col" class="num">
                Latency
              </th>
              <th scope="col">Time</th>
              <th scope="col">Error</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((delivery) => (
              <DeliveryRow
                key={delivery.id}
                delivery={delivery}
                channelName={channelName}
                retrying={retrying === delivery.id}
                onRetry={() => onRetry(delivery)}
              />
            ))}
          </tbody>
        </table>
      </div>
      {log.next !== null && (
        <div class="load-more">
          <button type="button" class="button" onClick={log.more} disabled={log.loadingMore}>
            {log.loadingMore ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </>
  );
}

const none = <span class="muted">—</span>;

function DeliveryRow({
  delivery,
  channelName,
  retrying,
  onRetry,
}: {
  delivery: WebhookDelivery;
  channelName(id: string): string;
  retrying: boolean;
  onRetry(): void;
}) {
  const name = deliveryName(delivery);
  return (
    <tr>
      <th scope="row" title={`Event ${delivery.eventId}`}>
        <code>{delivery.type}</code>
        {delivery.channelId && <span class="block muted">{channelName(delivery.channelId)}</span>}
      </th>
      <td class="num">{delivery.seq}</td>
      <td>
        <DeliveryStatus status={delivery.status} />
        {delivery.status === 'retrying' && delivery.nextAttempt && (
          <span class="block muted">
            next <Time value={delivery.nextAttempt} />
          </span>
        )}
      </td>
      <td class="num">{delivery.attempts}</td>
      <td class="num">{delivery.httpStatus ?? none}</td>
      <td class="num">{delivery.latencyMs === null ? none : `${delivery.latencyMs} ms`}</td>
      <td class="time-cell">
        <Time value={delivery.createdAt} />
      </td>
      <td class="wrap delivery-error">{delivery.error ?? none}</td>
      <td>
        {(delivery.status === 'dead' || delivery.status === 'retrying') && (
          <div class="actions">
            <RowButton
              label={delivery.status === 'dead' ? 'Retry' : 'Retry now'}
              aria-label={`Retry the delivery of ${name}`}
              pending={retrying}
              pendingLabel="Retrying…"
              onClick={onRetry}
            />
          </div>
        )}
      </td>
    </tr>
  );
}

/** "upload (event 12)": a delivery as a sentence names it. */
function deliveryName(delivery: WebhookDelivery): string {
  return `${delivery.type} (event ${delivery.seq})`;
}

/** What a retry came to: a dead delivery is sent again at once; a waiting one is only made due now. */
function retriedMessage(before: WebhookDelivery, after: WebhookDelivery): string {
  const name = deliveryName(before);
  if (before.status !== 'dead') return `The delivery of ${name} is due now: its next attempt runs at once.`;
  return after.status === 'delivered'
    ? `The delivery of ${name} was sent again: delivered, ${httpStatusText(after.httpStatus)}.`
    : `The delivery of ${name} was sent again and failed (${after.error ?? httpStatusText(after.httpStatus)}): it stays dead.`;
}
