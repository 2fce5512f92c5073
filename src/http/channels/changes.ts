import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { jsonAnswer, PAGE } from '../schemas/answer.ts';
import { EXAMPLE_CHANGES_PAGE } from '../schemas/examples.ts';
import { ChannelParams, pageOf } from '../schemas/files.ts';
import { ChangesQuery, FileChangeSchema } from '../schemas/history.ts';
import { channelErrorResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import { channelOf } from './support/channel-scope.ts';
import type { FilesRouteDeps } from './support/deps.ts';
import { pageRequestOf } from './support/page-request.ts';

const errors = channelErrorResponses;

/** What changed in a channel between backups or instants; registered in the channel scope. */
export default async function changesRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/changes',
    {
      preHandler: app.enterChannel({ permission: 'files:read' }),
      schema: {
        operationId: 'listChanges',
        summary:
          'What changed in the channel from backup `from` (or instant `fromAt`) to backup `to` (or instant `toAt`; default: the live files now), by folder and filename',
        description:
          'added / changed / deleted; a file with the same bytes (sha256) in both states is no change. ' +
          'An instant (RFC 3339) names the channel as it was then; 404 INSTANT_NOT_RETAINED when retention no longer holds it. ' +
          'Pass the same from, to and folder with `cursor` for the next page.',
        tags: ['backups'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        querystring: ChangesQuery,
        response: { 200: jsonAnswer(pageOf(FileChangeSchema), PAGE, EXAMPLE_CHANGES_PAGE), ...errors },
      },
    },
    async (request) => {
      const { from, fromAt, to, toAt, folder } = request.query;
      return deps.changes.between(channelOf(request), { from, fromAt, to, toAt, folder }, pageRequestOf(request.query));
    },
  );
}
