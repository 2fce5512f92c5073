import { pathSegment } from './encoding.ts';
import { json, jsonCall, readToEnd, type SignedSender } from './requests.ts';
import type {
  CreatedWebhook,
  NewWebhook,
  Page,
  PageRequest,
  RotatedWebhookSecret,
  Webhook,
  WebhookChanges,
  WebhookDelivery,
  WebhookDeliveryQuery,
  WebhookTestResult,
} from './types.ts';

const webhookPath = (webhookId: string) => `/api/webhooks/${pathSegment(webhookId)}`;

/** Names in NFC, the form the service stores folders and channels in (as listAudit sends them); ids are unchanged by it. */
function nameForms<T extends { channels?: string[]; folders?: string[] }>(filters: T): T {
  const { channels, folders } = filters;
  return {
    ...filters,
    ...(channels === undefined ? {} : { channels: channels.map((name) => name.normalize('NFC')) }),
    ...(folders === undefined ? {} : { folders: folders.map((name) => name.normalize('NFC')) }),
  };
}

/**
 * The tenant's webhooks: endpoints its events are posted to, signed with each webhook's secret
 * (verifyWebhook checks a delivery). Creating, changing and deleting one may be held by a policy
 * (webhook.create, webhook.change, webhook.delete): HeldForApproval, as for the other held operations.
 */
export function webhookCalls(signed: SignedSender) {
  return {
    /** The answer's `secret` is shown this once: hand it to the receiver, which verifies with it. */
    createWebhook: async (webhook: NewWebhook): Promise<CreatedWebhook> =>
      json(await signed(jsonCall('POST', '/api/webhooks', nameForms(webhook)))),

    listWebhooks: async (page: PageRequest = {}): Promise<Page<Webhook>> =>
      json(await signed({ method: 'GET', path: '/api/webhooks', query: { limit: page.limit, cursor: page.cursor } })),

    getWebhook: async (webhookId: string): Promise<Webhook> => json(await signed({ method: 'GET', path: webhookPath(webhookId) })),

    /** Changes its URL or filters, or pauses it (`paused: true`) and resumes it. */
    updateWebhook: async (webhookId: string, changes: WebhookChanges): Promise<Webhook> =>
      json(await signed(jsonCall('PATCH', webhookPath(webhookId), nameForms(changes)))),

    deleteWebhook: async (webhookId: string): Promise<void> => readToEnd(await signed({ method: 'DELETE', path: webhookPath(webhookId) })),

    /** Posts a test event to it now and answers how the receiver took it (a refusal is an answer, not an error). */
    testWebhook: async (webhookId: string): Promise<WebhookTestResult> =>
      json(await signed({ method: 'POST', path: `${webhookPath(webhookId)}/test` })),

    /**
     * A new secret, shown this once. Until `previousSecretValidUntil` each delivery is signed with
     * both, so the receiver can move to the new one meanwhile without refusing any.
     */
    rotateWebhookSecret: async (webhookId: string): Promise<RotatedWebhookSecret> =>
      json(await signed({ method: 'POST', path: `${webhookPath(webhookId)}/rotate-secret` })),

    listWebhookDeliveries: async (webhookId: string, query: WebhookDeliveryQuery = {}): Promise<Page<WebhookDelivery>> =>
      json(
        await signed({
          method: 'GET',
          path: `${webhookPath(webhookId)}/deliveries`,
          query: { limit: query.limit, cursor: query.cursor, status: query.status },
        }),
      ),

    /** Attempts the delivery again now (a dead one included). */
    retryWebhookDelivery: async (webhookId: string, deliveryId: string): Promise<WebhookDelivery> =>
      json(await signed({ method: 'POST', path: `${webhookPath(webhookId)}/deliveries/${pathSegment(deliveryId)}/retry` })),
  };
}
