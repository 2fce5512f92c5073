import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { ChannelQuotaView } from '../../administration/quota-management.ts';
import type { AdministrationRouteDeps } from '../admins/support/deps.ts';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { ChannelParams } from '../schemas/files.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { ChannelQuotaBody, ChannelQuotaSchema, EXAMPLE_CHANNEL_QUOTA } from '../schemas/quotas.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';

const errors = { ...authenticatedErrorResponses, ...problemResponses(404) };

/**
 * A channel's quota (docs/quotas.md). Outside the channel scope, as the channel's own
 * management is: an owner manages every channel of its tenant, linked to it or not.
 */
export default async function channelQuotaRoutes(base: FastifyInstance, deps: Pick<AdministrationRouteDeps, 'quotas'>): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/quota',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'getChannelQuota',
        summary: "The channel's quota, and its tenant's",
        tags: ['quotas'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        response: { 200: jsonAnswer(ChannelQuotaSchema, "The channel's quota", EXAMPLE_CHANNEL_QUOTA), ...errors },
      },
    },
    async (request) => quotaView(await deps.quotas.channelQuota(authenticationOf(request).principal.id, request.params.channelRef)),
  );

  app.put(
    '/api/channels/:channelRef/quota',
    {
      config: { auditRefusalsAs: 'channel.update' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'putChannelQuota',
        summary: "Set the channel's quota within its tenant's (channels:manage); below usage it refuses new bytes and deletes nothing",
        tags: ['quotas'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        body: ChannelQuotaBody,
        response: { 200: jsonAnswer(ChannelQuotaSchema, "Set: the channel's quota", EXAMPLE_CHANNEL_QUOTA), ...errors },
      },
    },
    async (request) =>
      quotaView(
        await deps.quotas.setChannelQuota(authenticationOf(request).principal.id, request.params.channelRef, {
          // A PUT replaces the whole quota: a limit left out is none.
          maxBytes: request.body?.maxBytes ?? null,
          maxFiles: request.body?.maxFiles ?? null,
        }),
      ),
  );
}

const quotaView = (view: ChannelQuotaView) => ({ channelId: view.channel.id, ...view.quota, tenant: view.tenantQuota });
