import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AdministrationRouteDeps } from '../admins/support/deps.ts';
import { authenticationOf } from '../auth/wallet-auth.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { ChannelParams } from '../schemas/files.ts';
import { authenticatedErrorResponses, problemResponses } from '../schemas/problem.ts';
import { ChannelUsageSchema, EXAMPLE_CHANNEL_USAGE } from '../schemas/quotas.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';

const errors = { ...authenticatedErrorResponses, ...problemResponses(404) };

/** A channel's usage against its quota (docs/quotas.md); outside the channel scope, as its quota is. */
export default async function channelUsageRoute(base: FastifyInstance, deps: Pick<AdministrationRouteDeps, 'quotas'>): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/usage',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'getChannelUsage',
        summary: "The channel's usage against its quota: live files and kept versions, each record once",
        tags: ['quotas'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        response: { 200: jsonAnswer(ChannelUsageSchema, "The channel's usage", EXAMPLE_CHANNEL_USAGE), ...errors },
      },
    },
    async (request) => {
      const view = await deps.quotas.channelUsage(authenticationOf(request).principal.id, request.params.channelRef);
      return { channelId: view.channel.id, usage: view.usage, quota: view.quota, left: view.left, tenantQuota: view.tenantQuota };
    },
  );
}
