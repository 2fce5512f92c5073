import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { authenticationOf } from './auth/wallet-auth.ts';
import type { FilesRouteDeps } from './channels/support/deps.ts';
import { pageRequestOf } from './channels/support/page-request.ts';
import { channelView } from './channels/support/views.ts';
import { jsonAnswer, PAGE } from './schemas/answer.ts';
import { ChannelSchema } from './schemas/channels.ts';
import { EXAMPLE_CHANNEL_PAGE } from './schemas/examples.ts';
import { PageQuery, pageOf } from './schemas/files.ts';
import { authenticatedErrorResponses } from './schemas/problem.ts';
import { WALLET_SECURITY } from './schemas/security.ts';

/**
 * The caller's own channels. Outside the channel scope: it names no channel, so there is none to
 * resolve, and it needs no permission — seeing the channels one is linked to is what every signed-in
 * admin may do (the same channels the channel routes answer for instead of 404).
 */
export default async function linkedChannelsRoute(base: FastifyInstance, deps: Pick<FilesRouteDeps, 'access'>): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels',
    {
      preHandler: app.requireWallet,
      schema: {
        operationId: 'listChannels',
        summary: 'The channels the signed-in admin is linked to, by name then id',
        tags: ['channels'],
        security: WALLET_SECURITY,
        querystring: PageQuery,
        response: { 200: jsonAnswer(pageOf(ChannelSchema), PAGE, EXAMPLE_CHANNEL_PAGE), ...authenticatedErrorResponses },
      },
    },
    async (request) => {
      const page = await deps.access.visibleChannels(authenticationOf(request).principal, pageRequestOf(request.query));
      return { items: page.items.map(channelView), next: page.next };
    },
  );
}
