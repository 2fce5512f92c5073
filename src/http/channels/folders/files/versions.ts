import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { jsonAnswer, PAGE } from '../../../schemas/answer.ts';
import { EXAMPLE_VERSION_PAGE } from '../../../schemas/examples.ts';
import { FileParams, PageQuery, pageOf, VersionSchema } from '../../../schemas/files.ts';
import { channelErrorResponses } from '../../../schemas/problem.ts';
import { WALLET_SECURITY } from '../../../schemas/security.ts';
import { channelOf, filePathOf } from '../../support/channel-scope.ts';
import type { FilesRouteDeps } from '../../support/deps.ts';
import { pageRequestOf } from '../../support/page-request.ts';
import { versionView } from '../../support/views.ts';

const errors = channelErrorResponses;

/** The stored versions of a file; registered in the channel scope. */
export default async function fileVersionsRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/folders/:folderName/files/:filename/versions',
    {
      preHandler: app.enterChannel({ permission: 'files:read' }),
      schema: {
        operationId: 'listFileVersions',
        summary: 'Every stored version of a file, newest first',
        tags: ['files'],
        security: WALLET_SECURITY,
        params: FileParams,
        querystring: PageQuery,
        response: { 200: jsonAnswer(pageOf(VersionSchema), PAGE, EXAMPLE_VERSION_PAGE), ...errors },
      },
    },
    async (request) => {
      const page = await deps.files.listVersions(channelOf(request), filePathOf(request), pageRequestOf(request.query));
      return { items: page.items.map(versionView), next: page.next };
    },
  );
}
