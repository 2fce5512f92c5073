import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { jsonAnswer, PAGE } from '../../schemas/answer.ts';
import { EXAMPLE_DELETED_PAGE } from '../../schemas/examples.ts';
import { FolderParams, PageQuery, pageOf } from '../../schemas/files.ts';
import { DeletedFileSchema } from '../../schemas/history.ts';
import { channelErrorResponses } from '../../schemas/problem.ts';
import { WALLET_SECURITY } from '../../schemas/security.ts';
import { channelOf, folderOf } from '../support/channel-scope.ts';
import type { FilesRouteDeps } from '../support/deps.ts';
import { pageRequestOf } from '../support/page-request.ts';
import { deletedFileView } from '../support/views.ts';

const errors = channelErrorResponses;

/** Files deleted from a folder that can still be restored; registered in the channel scope. */
export default async function deletedFilesRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/folders/:folderName/deleted',
    {
      preHandler: app.enterChannel({ permission: 'files:read' }),
      schema: {
        operationId: 'listDeletedFiles',
        summary: 'Files deleted from the folder that can still be restored, by filename, each with its newest deletion',
        description: 'Restore one with POST …/files/{filename}/restore?versionId={versionId}. A file uploaded again is not listed.',
        tags: ['files'],
        security: WALLET_SECURITY,
        params: FolderParams,
        querystring: PageQuery,
        response: { 200: jsonAnswer(pageOf(DeletedFileSchema), PAGE, EXAMPLE_DELETED_PAGE), ...errors },
      },
    },
    async (request) => {
      const channel = channelOf(request);
      const page = await deps.deleted.list(channel, folderOf(request), pageRequestOf(request.query));
      const admins = page.items.map((v) => v.createdBy);
      const names = await deps.adminNames.of(channel, admins);
      return { items: page.items.map((v) => deletedFileView(v, names)), next: page.next };
    },
  );
}
