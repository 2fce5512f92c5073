import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AdministrationRouteDeps } from './admins/support/deps.ts';
import { authenticationOf } from './auth/wallet-auth.ts';
import type { FilesRouteDeps } from './channels/support/deps.ts';
import { pageRequestOf } from './channels/support/page-request.ts';
import { channelView } from './channels/support/views.ts';
import { ChannelChangeBody, NewChannelBody } from './schemas/administration.ts';
import { EXAMPLE_MANAGED_CHANNEL } from './schemas/administration-examples.ts';
import { jsonAnswer, PAGE } from './schemas/answer.ts';
import { ChannelSchema } from './schemas/channels.ts';
import { EXAMPLE_CHANNEL_PAGE } from './schemas/examples.ts';
import { ChannelParams, PageQuery, pageOf } from './schemas/files.ts';
import { authenticatedErrorResponses, problemResponses } from './schemas/problem.ts';
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

/**
 * Creating, renaming and archiving channels (channels:manage; docs/administration.md). Outside the
 * channel scope: an owner manages every channel of its tenant, linked to it or not, which the
 * scope's gate (linked channels only) would refuse.
 */
export async function channelManagementRoutes(base: FastifyInstance, deps: Pick<AdministrationRouteDeps, 'channels'>): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/channels',
    {
      config: { auditRefusalsAs: 'channel.create' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'createChannel',
        summary: 'Create a channel (channels:manage); the caller is linked to it',
        tags: ['channels'],
        security: WALLET_SECURITY,
        body: NewChannelBody,
        response: {
          201: jsonAnswer(ChannelSchema, 'Created: the channel', EXAMPLE_MANAGED_CHANNEL),
          ...authenticatedErrorResponses,
          ...problemResponses(409),
        },
      },
    },
    async (request, reply) => {
      const channel = await deps.channels.create(authenticationOf(request).principal.id, request.body.name);
      return reply.code(201).send(channelView(channel));
    },
  );

  app.patch(
    '/api/channels/:channelRef',
    {
      config: { auditRefusalsAs: 'channel.update' },
      preValidation: app.requireWallet,
      schema: {
        operationId: 'updateChannel',
        summary: 'Rename a channel, or archive it (read-only) and back (channels:manage)',
        tags: ['channels'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        body: ChannelChangeBody,
        response: {
          200: jsonAnswer(ChannelSchema, 'Changed: the channel', EXAMPLE_MANAGED_CHANNEL),
          ...authenticatedErrorResponses,
          ...problemResponses(404, 409),
        },
      },
    },
    async (request) => {
      const channel = await deps.channels.update(authenticationOf(request).principal.id, request.params.channelRef, request.body);
      return channelView(channel);
    },
  );
}
