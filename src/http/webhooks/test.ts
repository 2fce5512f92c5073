import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { WebhookParams, WebhookTestSchema } from '../schemas/webhooks.ts';
import type { WebhookRouteDeps } from './support/deps.ts';

/** POST /api/webhooks/{webhookId}/test: a signed webhook.test event, now, and what the receiver answered. */
export default async function webhookTestRoute(base: FastifyInstance, deps: WebhookRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/webhooks/:webhookId/test',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'testWebhook',
        summary: 'Send a signed webhook.test event now (not in the audit chain) and answer what the receiver said',
        tags: ['events'],
        security: WALLET_SECURITY,
        params: WebhookParams,
        response: {
          200: jsonAnswer(WebhookTestSchema, 'Sent (delivered: false says why not)', {
            delivered: true,
            status: 204,
            latencyMs: 14,
            error: null,
            excerpt: '',
          }),
          ...authenticatedErrorResponses,
          ...problemResponses(404),
        },
      },
    },
    async (request) => deps.webhooks.test(authenticationOf(request).principal.id, request.params.webhookId),
  );
}
