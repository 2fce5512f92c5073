import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authenticationOf } from './auth/wallet-auth.ts';
import type { OffsiteRouteDeps } from './offsite/support/deps.ts';
import { sendProposal, shownProposal } from './proposals/support/views.ts';
import { jsonAnswer } from './schemas/answer.ts';
import { heldAnswer } from './schemas/approvals-examples.ts';
import { EXAMPLE_TENANT_OFFSITE, TenantOffsiteBody, TenantOffsiteSchema } from './schemas/offsite.ts';
import { authenticatedErrorResponses, problemResponses } from './schemas/problem.ts';
import { WALLET_SECURITY } from './schemas/security.ts';

const errors = { ...authenticatedErrorResponses, ...problemResponses(404) };

/** The tenant's own off-site target (docs/offsite.md, "A tenant's own copy"): set, read, removed. */
export default async function offsiteRoutes(base: FastifyInstance, deps: OffsiteRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.put(
    '/api/offsite',
    {
      config: { auditRefusalsAs: 'offsite.change' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'setTenantOffsite',
        summary: "Keep a copy of the tenant's data in the tenant's own bucket, encrypted to its own age recipients (offsite:manage)",
        description:
          "Sets or replaces the target. The copy holds the tenant's files, versions, backups, admins, channels, policies, proposals and audit chain, " +
          "in the format of the operator's copy, and rebuilds with `wallet-admin offsite restore --tenant` and the tenant's identity. The secret key is never shown again.",
        tags: ['offsite'],
        security: WALLET_SECURITY,
        body: TenantOffsiteBody,
        response: {
          200: jsonAnswer(TenantOffsiteSchema, 'Set: shipping there begins within OFFSITE_TENANT_INTERVAL', EXAMPLE_TENANT_OFFSITE),
          202: heldAnswer('offsite.change'),
          ...errors,
          ...problemResponses(409),
        },
      },
    },
    async (request, reply) => {
      const actorId = authenticationOf(request).principal.id;
      const held = await deps.held.set(actorId, request.body);
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, actorId));
      return held.ran;
    },
  );

  app.get(
    '/api/offsite',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'getTenantOffsite',
        summary: "The tenant's own off-site target (never its secret), with its lag, last error and last check",
        tags: ['offsite'],
        security: WALLET_SECURITY,
        response: { 200: jsonAnswer(TenantOffsiteSchema, 'The target and how far the copy has come', EXAMPLE_TENANT_OFFSITE), ...errors },
      },
    },
    async (request) => deps.offsite.get(authenticationOf(request).principal.id),
  );

  app.delete(
    '/api/offsite',
    {
      config: { auditRefusalsAs: 'offsite.change' },
      preHandler: app.requireWallet,
      schema: {
        operationId: 'removeTenantOffsite',
        summary: "Stop shipping the tenant's own copy: nothing at the target is deleted",
        tags: ['offsite'],
        security: WALLET_SECURITY,
        response: {
          204: { type: 'null', description: 'Stopped' },
          202: heldAnswer('offsite.change'),
          ...errors,
          ...problemResponses(412),
        },
      },
    },
    async (request, reply) => {
      const actorId = authenticationOf(request).principal.id;
      const held = await deps.held.remove(actorId);
      if (held.proposal !== undefined) return sendProposal(reply, await shownProposal(deps.proposals, held.proposal, actorId));
      return reply.code(204).send(null);
    },
  );
}
