import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ARCHIVE_DESCRIPTION, ARCHIVE_RESPONSES, ArchiveQuery } from '../../schemas/archive.ts';
import { FolderParams } from '../../schemas/files.ts';
import { channelErrorResponses, problemResponses } from '../../schemas/problem.ts';
import { WALLET_SECURITY } from '../../schemas/security.ts';
import { archiveAnswer } from '../support/archive-answer.ts';
import { actorOf, channelOf, folderOf } from '../support/channel-scope.ts';
import type { FilesRouteDeps } from '../support/deps.ts';

/** One folder as a ZIP (docs/archives.md); registered in the channel scope. */
export default async function folderArchiveRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/folders/:folderName/archive',
    {
      // A HEAD would prepare, hold and audit an archive only to drop it.
      exposeHeadRoute: false,
      preHandler: app.enterChannel({ permission: 'files:read' }),
      schema: {
        operationId: 'archiveFolder',
        summary: "Download a folder's files as a ZIP: live, at a backup or at an instant",
        description: ARCHIVE_DESCRIPTION,
        tags: ['files'],
        security: WALLET_SECURITY,
        params: FolderParams,
        querystring: ArchiveQuery,
        response: { ...ARCHIVE_RESPONSES, ...channelErrorResponses, ...problemResponses(429) },
      },
    },
    async (request, reply) => {
      const { backupTimestamp, at } = request.query;
      const folder = folderOf(request);
      return archiveAnswer(reply, await deps.archives.open(channelOf(request), actorOf(request), { folder, backupTimestamp, at }));
    },
  );
}
