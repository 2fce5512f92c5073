import type { OutgoingEvent } from '../events/brokers/event-broker.ts';
import type { AttemptResult, Destination } from '../events/dispatcher.ts';
import { accepts, type EventVisibility } from '../events/event-filter.ts';
import { signWebhook } from '../events/webhook-signature.ts';
import type { AuditEvent } from '../model/audit.ts';
import type { EventRecords, WebhookRecord } from '../model/events.ts';
import type { OutboundAllow } from '../outbound/outbound-allow.ts';
import { checkOutboundUrl } from '../outbound/outbound-guard.ts';
import { postChecked } from '../outbound/outbound-post.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { SERVICE_VERSION } from '../version.ts';

/** The sealed values' contexts: a sealed URL or secret opens only in its own webhook's row and column. */
export const urlContext = (id: string): string => `webhook-url:${id}`;
export const secretContext = (id: string): string => `webhook-secret:${id}`;
export const previousSecretContext = (id: string): string => `webhook-previous-secret:${id}`;

export interface SendDeps {
  box: SecretBox;
  allow: OutboundAllow;
  now: () => number;
  /** Tests point a DNS name at a loopback receiver without a resolver. */
  lookup?: Parameters<typeof checkOutboundUrl>[2];
}

/**
 * One signed POST of `event` to the webhook (docs/events.md, "Webhooks"). The URL is checked by the
 * outbound guard at every attempt (a name may resolve elsewhere since it was set) and the
 * connection goes to the address checked. Signed with the secret and, during a rotation's grace
 * period, the previous one too. 2xx is delivered; anything else (a redirect included: it is not
 * followed) is a failure whose excerpt the delivery log keeps.
 */
export async function sendToWebhook(
  webhook: WebhookRecord,
  event: Pick<OutgoingEvent, 'id' | 'body'>,
  timeoutMs: number,
  deps: SendDeps,
): Promise<AttemptResult> {
  const started = deps.now();
  try {
    // The resolver has no deadline of its own: the attempt's covers the lookup too.
    const target = await withinDeadline(
      checkOutboundUrl(deps.box.open(webhook.urlSealed, urlContext(webhook.id)), deps.allow, deps.lookup),
      timeoutMs,
    );
    const secrets = [deps.box.open(webhook.secretSealed, secretContext(webhook.id))];
    if (webhook.previousSecretSealed !== null && (webhook.previousSecretUntil ?? 0) > started) {
      secrets.push(deps.box.open(webhook.previousSecretSealed, previousSecretContext(webhook.id)));
    }
    const headers = {
      ...signWebhook(secrets, event.id, Math.floor(started / 1000), event.body),
      'content-type': 'application/json',
      'user-agent': `wallet-admin/${SERVICE_VERSION} (webhooks)`,
    };
    const answer = await postChecked(target, event.body, headers, { timeoutMs });
    const ok = answer.status >= 200 && answer.status < 300;
    return {
      ok,
      httpStatus: answer.status,
      error: ok ? null : `HTTP ${answer.status}${answer.excerpt === '' ? '' : `: ${answer.excerpt}`}`.slice(0, 600),
      latencyMs: answer.latencyMs,
      excerpt: answer.excerpt,
    };
  } catch (error) {
    return { ok: false, httpStatus: null, error: String((error as Error).message ?? error).slice(0, 600), latencyMs: deps.now() - started };
  }
}

function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the receiver's name did not resolve within ${ms} ms`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** A webhook as the dispatcher delivers to it: its one stream (its tenant's chain), its filters, and what its creator may read. */
export function webhookDestination(
  webhook: WebhookRecord,
  visibility: EventVisibility | undefined,
  records: EventRecords,
  deps: SendDeps,
): Destination {
  const filter = { types: webhook.types, channels: webhook.channels, folders: webhook.folders, results: webhook.results };
  return {
    key: webhook.id,
    kind: 'webhook',
    async streams() {
      const stream = await records.streamOf(webhook.id, webhook.tenantId);
      return stream === undefined ? [] : [stream];
    },
    accepts: (event: AuditEvent) => accepts(filter, event, visibility),
    send: (event, timeoutMs) => sendToWebhook(webhook, event, timeoutMs, deps),
  };
}
