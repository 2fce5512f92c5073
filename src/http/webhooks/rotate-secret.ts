import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { sendProposal, shownProposal } from '../proposals/support/views.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { heldAnswer } from '../schemas/approvals-examples.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { EXAMPLE_SECRET, RotatedSecretSchema, WebhookParams } from '../schemas/webhooks.ts';
import type { WebhookRouteDeps } from './support/deps.ts';

/** POST /api/webhooks/{webhookId}/rotate-secret: a new signing secret; the old one signs beside it for WEBHOOK_SECRET_GRACE. */
export default async function rotateSecretRoute(base: FastifyInstance, deps: WebhookRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/webhooks/:webhookId/rotate-secret',
    {
      config: { auditRefusalsAs: 'webhook.change' },
      preHandler: app.requireWallet,
      schema: {
        operationId: 'rotateWebhookSecret',
        summary: 'A new signing secret, shown once; the previous one keeps signing beside it for the grace period (WEBHOOK_SECRET_GRACE)',
        description: 'A webhook.change: a policy holding webhook.change holds it too.',
        tags: ['events'],
        security: WALLET_SECURITY,
        params: WebhookParams,
        response: {
          200: jsonAnswer(RotatedSecretSchema, 'Rotated: give the receiver the new secret before the grace period ends', {
            id: 'whk_7m2k9d4q1x8c5v3b6n0p2r4t6w',
            secret: EXAMPLE_SECRET,
            previousSecretValidUntil: '2026-12-07T12:00:00.000Z',
          }),
          202: heldAnswer('webhook.change'),
          ...authenticatedErrorResponses,
          ...problemResponses(404, 412),
        },
      },
    },
    async (request, reply) => {
      const actorId = authenticationOf(request).principal.id;
      const held = await deps.held.rotate(actorId, request.params.webhookId);
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, actorId));
      return held.ran;
    },
  );
}
