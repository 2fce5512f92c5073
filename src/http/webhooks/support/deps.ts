import type { HeldWebhooks } from '../../../approvals/held-webhooks.ts';
import type { ProposalService } from '../../../approvals/proposal-service.ts';
import type { WebhookService } from '../../../webhooks/webhook-service.ts';

/** What the webhook routes need (docs/events.md): services only. */
export interface WebhookRouteDeps {
  webhooks: WebhookService;
  /** Creation, changes, secret rotation and deletion, which a policy may hold. */
  held: HeldWebhooks;
  proposals: ProposalService;
}
