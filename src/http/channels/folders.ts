import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { jsonAnswer, PAGE } from '../schemas/answer.ts';
import { FolderSchema } from '../schemas/channels.ts';
import { EXAMPLE_FOLDER_PAGE } from '../schemas/examples.ts';
import { ChannelParams, PageQuery, pageOf } from '../schemas/files.ts';
import { channelErrorResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { channelOf } from './support/channel-scope.ts';
import type { FilesRouteDeps } from './support/deps.ts';
import { pageRequestOf } from './support/page-request.ts';
import { folderView } from './support/views.ts';

const errors = channelErrorResponses;

/** The folders of a channel; registered in the channel scope. */
export default async function foldersRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/folders',
    {
      preHandler: app.enterChannel({ permission: 'files:read' }),
      schema: {
        operationId: 'listFolders',
        summary: 'Folders of the channel that hold at least one live file, by name, with their file counts',
        tags: ['files'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        querystring: PageQuery,
        response: { 200: jsonAnswer(pageOf(FolderSchema), PAGE, EXAMPLE_FOLDER_PAGE), ...errors },
      },
    },
    async (request) => {
      const page = await deps.files.listFolders(channelOf(request), pageRequestOf(request.query));
      return { items: page.items.map(folderView), next: page.next };
    },
  );
}
