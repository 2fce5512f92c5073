import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { pageRequestOf } from '../channels/support/page-request.ts';
import { jsonAnswer, PAGE } from '../schemas/answer.ts';
import { pageOf } from '../schemas/files.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { DeliveryQuery, DeliverySchema, EXAMPLE_DELIVERY, WebhookParams } from '../schemas/webhooks.ts';
import type { WebhookRouteDeps } from './support/deps.ts';

/** GET /api/webhooks/{webhookId}/deliveries: the delivery log, newest first. */
export default async function deliveriesRoute(base: FastifyInstance, deps: WebhookRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/webhooks/:webhookId/deliveries',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'listWebhookDeliveries',
        summary: "A webhook's delivery log, newest first: each event's status, attempts, last error excerpt and latency",
        tags: ['events'],
        security: WALLET_SECURITY,
        params: WebhookParams,
        querystring: DeliveryQuery,
        response: {
          200: jsonAnswer(pageOf(DeliverySchema), PAGE, { items: [EXAMPLE_DELIVERY], next: null }),
          ...authenticatedErrorResponses,
          ...problemResponses(404),
        },
      },
    },
    async (request) =>
      deps.webhooks.deliveries(
        authenticationOf(request).principal.id,
        request.params.webhookId,
        pageRequestOf(request.query),
        request.query.status,
      ),
  );
}
