import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { jsonAnswer, PAGE } from '../schemas/answer.ts';
import { EXAMPLE_CHANGES_PAGE, EXAMPLE_DELETED_PAGE } from '../schemas/examples.ts';
import { ChannelParams, FolderParams, PageQuery, pageOf } from '../schemas/files.ts';
import { ChangesQuery, DeletedFileSchema, FileChangeSchema } from '../schemas/history.ts';
import { channelErrorResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import type { FilesRouteDeps } from './deps.ts';
import { pageRequestOf } from './page-request.ts';
import { channelOf, folderOf } from './scope.ts';
import { deletedFileView } from './views.ts';

const errors = channelErrorResponses;

/** A channel's past: deleted files that can still be restored, and what changed between backups; registered in the channel scope. */
export default async function historyRoutes(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/channels/:channelRef/folders/:folderName/deleted',
    {
      config: { permission: 'files:read' },
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

  app.get(
    '/api/channels/:channelRef/changes',
    {
      config: { permission: 'files:read' },
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
