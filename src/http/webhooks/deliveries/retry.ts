import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authenticationOf } from '../../auth/wallet-auth.ts';
import { jsonAnswer } from '../../schemas/answer.ts';
import { authenticatedErrorResponses, problemResponses } from '../../schemas/problem.ts';
import { WALLET_SECURITY } from '../../schemas/security.ts';
import { DeliveryParams, DeliverySchema, EXAMPLE_DELIVERY } from '../../schemas/webhooks.ts';
import type { WebhookRouteDeps } from '../support/deps.ts';

/** POST /api/webhooks/{webhookId}/deliveries/{deliveryId}/retry: a dead delivery sent again now; a waiting one made due now. */
export default async function retryDeliveryRoute(base: FastifyInstance, deps: WebhookRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/webhooks/:webhookId/deliveries/:deliveryId/retry',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'retryWebhookDelivery',
        summary: 'Send a dead-lettered event again now (answers what came of it), or make a waiting retry due now',
        tags: ['events'],
        security: WALLET_SECURITY,
        params: DeliveryParams,
        response: {
          200: jsonAnswer(DeliverySchema, 'The delivery as it stands', EXAMPLE_DELIVERY),
          ...authenticatedErrorResponses,
          ...problemResponses(404, 409),
        },
      },
    },
    async (request) => deps.webhooks.retry(authenticationOf(request).principal.id, request.params.webhookId, request.params.deliveryId),
  );
}
