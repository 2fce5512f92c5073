import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { type AdministrationRouteDeps, tenantFeatures } from '../admins/support/deps.ts';
import { adminView } from '../admins/support/views.ts';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { AdminSchema, ChannelAdminParams } from '../schemas/administration.ts';
import { EXAMPLE_ADMIN } from '../schemas/administration-examples.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { ChannelParams } from '../schemas/files.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';

const errors = { ...authenticatedErrorResponses, ...problemResponses(404) };

/**
 * The admins linked to a channel, and linking or unlinking one (admins:manage over that admin, on
 * a channel the caller holds). Outside the channel scope, as channel management is (channels.ts).
 */
export default async function channelAdminRoutes(base: FastifyInstance, deps: AdministrationRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/admins',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'listChannelAdmins',
        summary: 'The admins linked to the channel that the caller may read (admins:read)',
        tags: ['admins'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        response: { 200: jsonAnswer(Type.Object({ items: Type.Array(AdminSchema) }), 'The admins', { items: [EXAMPLE_ADMIN] }), ...errors },
      },
    },
    async (request) => {
      const { principal } = authenticationOf(request);
      const admins = await deps.channels.admins(principal.id, request.params.channelRef);
      const features = await tenantFeatures(deps, principal.tenantId);
      return { items: admins.map((a) => adminView(a, features)) };
    },
  );

  const linking = (linked: boolean) => ({
    config: { auditRefusalsAs: linked ? ('channel.link' as const) : ('channel.unlink' as const) },
    preHandler: app.requireWallet,
    schema: {
      operationId: linked ? 'linkChannelAdmin' : 'unlinkChannelAdmin',
      summary: linked
        ? 'Link an admin to the channel (admins:manage over the admin; the caller holds the channel)'
        : 'Unlink an admin from the channel (admins:manage over the admin); in force everywhere within AUTH_STATE_REFRESH',
      tags: ['admins'],
      security: WALLET_SECURITY,
      params: ChannelAdminParams,
      response: { 204: { type: 'null', description: linked ? 'Linked' : 'Unlinked' }, ...errors, ...problemResponses(409) },
    },
  });
  app.put('/api/channels/:channelRef/admins/:adminId', linking(true), async (request, reply) => {
    const { channelRef, adminId } = request.params;
    await deps.channels.link(authenticationOf(request).principal.id, channelRef, adminId, true);
    return reply.code(204).send(null);
  });
  app.delete('/api/channels/:channelRef/admins/:adminId', linking(false), async (request, reply) => {
    const { channelRef, adminId } = request.params;
    await deps.channels.link(authenticationOf(request).principal.id, channelRef, adminId, false);
    return reply.code(204).send(null);
  });
}
