import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authenticationOf } from './auth/wallet-auth.ts';
import { pageRequestOf } from './channels/support/page-request.ts';
import { sendProposal, shownProposal } from './proposals/support/views.ts';
import { jsonAnswer, PAGE } from './schemas/answer.ts';
import { heldAnswer } from './schemas/approvals-examples.ts';
import { PageQuery, pageOf } from './schemas/files.ts';
import { authenticatedErrorResponses, problemResponses } from './schemas/problem.ts';
import { WALLET_SECURITY } from './schemas/security.ts';
import {
  CreatedWebhookSchema,
  EXAMPLE_SECRET,
  EXAMPLE_WEBHOOK,
  NewWebhookBody,
  WebhookChangeBody,
  WebhookParams,
  WebhookSchema,
} from './schemas/webhooks.ts';
import type { WebhookRouteDeps } from './webhooks/support/deps.ts';

const errors = { ...authenticatedErrorResponses, ...problemResponses(404) };

/** A tenant's webhooks (docs/events.md): the collection and each webhook. */
export default async function webhookRoutes(base: FastifyInstance, deps: WebhookRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/webhooks',
    {
      config: { auditRefusalsAs: 'webhook.create' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'createWebhook',
        summary: "Send the tenant's events to a URL (webhooks:manage), signed as Standard Webhooks say",
        description:
          "Answers the signing secret once. The webhook carries the tenant's audit log as its creator may read it, from its creation on " +
          '(from: start for the whole chain first), at least once, in order per channel; a receiver deduplicates by the event id.',
        tags: ['events'],
        security: WALLET_SECURITY,
        body: NewWebhookBody,
        response: {
          201: jsonAnswer(CreatedWebhookSchema, 'Made: keep the secret, it is not shown again', {
            ...EXAMPLE_WEBHOOK,
            secret: EXAMPLE_SECRET,
          }),
          202: heldAnswer('webhook.create'),
          ...errors,
          ...problemResponses(409),
        },
      },
    },
    async (request, reply) => {
      const actorId = authenticationOf(request).principal.id;
      const held = await deps.held.create(actorId, request.body);
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, actorId));
      return reply
        .code(201)
        .header('Location', `/api/webhooks/${held.ran.webhook.id}`)
        .send({ ...held.ran.webhook, secret: held.ran.secret });
    },
  );

  app.get(
    '/api/webhooks',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'listWebhooks',
        summary: "The tenant's webhooks the caller manages (webhooks:manage): an owner every one, another admin those it made",
        tags: ['events'],
        security: WALLET_SECURITY,
        querystring: PageQuery,
        response: { 200: jsonAnswer(pageOf(WebhookSchema), PAGE, { items: [EXAMPLE_WEBHOOK], next: null }), ...errors },
      },
    },
    async (request) => deps.webhooks.list(authenticationOf(request).principal.id, pageRequestOf(request.query)),
  );

  app.get(
    '/api/webhooks/:webhookId',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'getWebhook',
        summary: 'A webhook: its filters, its state, how far it has delivered and its last delivery',
        tags: ['events'],
        security: WALLET_SECURITY,
        params: WebhookParams,
        response: { 200: jsonAnswer(WebhookSchema, 'The webhook', EXAMPLE_WEBHOOK), ...errors },
      },
    },
    async (request) => deps.webhooks.get(authenticationOf(request).principal.id, request.params.webhookId),
  );

  app.patch(
    '/api/webhooks/:webhookId',
    {
      config: { auditRefusalsAs: 'webhook.change' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'updateWebhook',
        summary: 'Change a webhook: pause or resume it, its filters or its URL',
        tags: ['events'],
        security: WALLET_SECURITY,
        params: WebhookParams,
        body: WebhookChangeBody,
        response: {
          200: jsonAnswer(WebhookSchema, 'Changed', EXAMPLE_WEBHOOK),
          202: heldAnswer('webhook.change'),
          ...errors,
          ...problemResponses(412),
        },
      },
    },
    async (request, reply) => {
      const actorId = authenticationOf(request).principal.id;
      const held = await deps.held.update(actorId, request.params.webhookId, request.body);
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, actorId));
      return held.ran;
    },
  );

  app.delete(
    '/api/webhooks/:webhookId',
    {
      config: { auditRefusalsAs: 'webhook.delete' },
      preHandler: app.requireWallet,
      schema: {
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook: its receiver gets no more events (a new one starts at the chain head)',
        tags: ['events'],
        security: WALLET_SECURITY,
        params: WebhookParams,
        response: {
          204: { type: 'null', description: 'Deleted, with its delivery log' },
          202: heldAnswer('webhook.delete'),
          ...errors,
          ...problemResponses(412),
        },
      },
    },
    async (request, reply) => {
      const actorId = authenticationOf(request).principal.id;
      const held = await deps.held.remove(actorId, request.params.webhookId);
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, actorId));
      return reply.code(204).send(null);
    },
  );
}
