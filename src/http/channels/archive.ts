import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ARCHIVE_DESCRIPTION, ARCHIVE_RESPONSES, ArchiveQuery } from '../schemas/archive.ts';
import { ChannelParams } from '../schemas/files.ts';
import { channelErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { archiveAnswer } from './support/archive-answer.ts';
import { actorOf, channelOf } from './support/channel-scope.ts';
import type { FilesRouteDeps } from './support/deps.ts';

/** The whole channel as one ZIP (docs/archives.md); registered in the channel scope. */
export default async function channelArchiveRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/archive',
    {
      // A HEAD would prepare, hold and audit an archive only to drop it.
      exposeHeadRoute: false,
      preHandler: app.enterChannel({ permission: 'files:read' }),
      schema: {
        operationId: 'archiveChannel',
        summary: "Download the channel's files as a ZIP: live, at a backup or at an instant",
        description: ARCHIVE_DESCRIPTION,
        tags: ['files'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        querystring: ArchiveQuery,
        response: { ...ARCHIVE_RESPONSES, ...channelErrorResponses, ...problemResponses(429) },
      },
    },
    async (request, reply) => {
      const { backupTimestamp, at } = request.query;
      return archiveAnswer(reply, await deps.archives.open(channelOf(request), actorOf(request), { backupTimestamp, at }));
    },
  );
}
