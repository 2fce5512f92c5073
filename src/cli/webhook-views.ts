import type { Webhook, WebhookDelivery } from '../client/index.ts';
import { type TerminalText, terminalLines, terminalText } from './terminal-text.ts';

/*
 * What the CLI prints of a webhook and its deliveries, in either mode: over HTTP the API's answer,
 * locally the same view made from the store (src/webhooks/webhook-views.ts). --json prints those as
 * they are; the text names only what both modes have, and never a secret (the records hold none).
 */

/** The members both the API's webhook and the local view have, which the text shows. */
type ShownWebhook = Pick<
  Webhook,
  | 'id'
  | 'url'
  | 'types'
  | 'channels'
  | 'folders'
  | 'results'
  | 'state'
  | 'stoppedReason'
  | 'createdBy'
  | 'createdAt'
  | 'lowWaterSeq'
  | 'headSeq'
  | 'lastDelivery'
>;

type ShownDelivery = Pick<
  WebhookDelivery,
  'id' | 'eventId' | 'type' | 'seq' | 'channelId' | 'status' | 'attempts' | 'httpStatus' | 'error' | 'latencyMs' | 'updatedAt'
>;

const every = (values: readonly string[]): string => (values.length > 0 ? values.join(', ') : 'all');

function stateText(webhook: ShownWebhook): string {
  return webhook.state === 'stopped' && webhook.stoppedReason !== null ? `stopped (${webhook.stoppedReason})` : webhook.state;
}

function filtersText(webhook: ShownWebhook): string {
  return `types: ${every(webhook.types)}; channels: ${every(webhook.channels)}; folders: ${every(webhook.folders)}; results: ${webhook.results.join(', ')}`;
}

/** How far it has come: every event of the chain up to its low water was delivered or dead-lettered. */
export function progressText(lowWater: number, head: number): string {
  const behind = head - lowWater;
  return `up to event ${lowWater} of ${head}${behind > 0 ? ` (${behind} behind)` : ''}`;
}

/** One line of a list. */
export function webhookLine(webhook: ShownWebhook): TerminalText {
  return terminalText`${webhook.id}  ${stateText(webhook)}  ${webhook.url}  (${filtersText(webhook)})  ${progressText(webhook.lowWaterSeq, webhook.headSeq)}`;
}

/** `webhook show`: everything but the secret, which nobody can read again. */
export function webhookDetails(webhook: ShownWebhook): TerminalText {
  const last = webhook.lastDelivery;
  return terminalLines([
    terminalText`Webhook ${webhook.id}: ${stateText(webhook)}`,
    terminalText`  Endpoint: ${webhook.url}`,
    terminalText`  Types: ${every(webhook.types)}`,
    terminalText`  Channels: ${every(webhook.channels)}`,
    terminalText`  Folders: ${every(webhook.folders)}`,
    terminalText`  Results: ${webhook.results.join(', ')}`,
    terminalText`  Created by ${webhook.createdBy} at ${webhook.createdAt}`,
    terminalText`  Delivered or dead-lettered: ${progressText(webhook.lowWaterSeq, webhook.headSeq)}`,
    last === null
      ? terminalText`  Last delivery: none yet`
      : terminalText`  Last delivery: ${last.status}${last.httpStatus === null ? '' : ` (HTTP ${last.httpStatus})`} at ${last.at}`,
  ]);
}

/** One line of a delivery log: what it was, where it stands, and the last attempt's answer. */
export function deliveryLine(delivery: ShownDelivery): TerminalText {
  const attempts = `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}`;
  const answer = [
    delivery.httpStatus === null ? '' : `HTTP ${delivery.httpStatus}`,
    delivery.latencyMs === null ? '' : `${delivery.latencyMs} ms`,
  ]
    .filter(Boolean)
    .join(', ');
  const error = delivery.error === null ? '' : `  error: ${delivery.error}`;
  return terminalText`${delivery.id}  ${delivery.status}  ${delivery.type}  event ${delivery.seq} (${delivery.eventId})  ${delivery.channelId ?? 'no channel'}  ${attempts}${answer === '' ? '' : `  ${answer}`}  ${delivery.updatedAt}${error}`;
}
