import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../../errors/app-error.ts';
import { namedChannel, requirePermission, visibleChannel } from '../../files/channel-access.ts';
import type { FilesRouteDeps } from '../files-route-deps.ts';
import { authenticationOf } from '../plugins/wallet-auth.ts';
import { FileParams, RestoreQuery } from '../schemas/files.ts';
import { authenticatedErrorResponses, problemRef } from '../schemas/problem.ts';

/** The contract's content type, byte for byte. The URL in the body is ASCII (percent-encoded). */
export const RESTORE_CONTENT_TYPE = 'text/plain;charset=ISO-8859-1';

export default async function restoreRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  app.post('/api/channels/:channelRef/folders/:folderName/files/:filename/restore', {
    preHandler: app.requireWallet,
    schema: {
      summary: 'Restore a file from a backup (or a kept version); answers the URL of the restored file',
      description: 'The replaced bytes are kept as a version first, so every restore can be undone with ?versionId=.',
      tags: ['files'],
      params: FileParams,
      querystring: RestoreQuery,
      // No body schema: Fastify would refuse the contract's empty body as "not an object".
      response: {
        200: Type.String({ description: `The URL of the restored file (${RESTORE_CONTENT_TYPE})` }),
        ...authenticatedErrorResponses, 400: problemRef, 404: problemRef, 500: problemRef, 507: problemRef,
      },
    },
  }, async (request, reply) => {
    const { principal } = authenticationOf(request);
    requireEmptyOrObject(request.body);
    const actor = { adminId: principal.id };
    const requested = { folder: request.params.folderName, filename: request.params.filename };
    const source = { backupTimestamp: request.query.backupTimestamp, versionId: request.query.versionId };
    const channel = await visibleChannel(deps.store, principal, request.params.channelRef).catch(async (error: unknown) => {
      const named = await namedChannel(deps.store, principal, request.params.channelRef);
      if (named) await deps.restores.recordUnseen(named, actor, requested, source, error);
      throw error;
    });
    const { file } = await deps.restores.restore(channel, actor, requested, source, () => requirePermission(principal, 'files:restore'));
    return reply.code(200).type(RESTORE_CONTENT_TYPE).send(await deps.fileUrls(file));
  });
}

/** The contract sends no body or `{}`; any JSON object is accepted and ignored, anything else refused. */
function requireEmptyOrObject(body: unknown): void {
  if (body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body))) return;
  throw new AppError('VALIDATION_FAILED', 'The restore body must be empty or a JSON object such as {}; the backup is chosen with ?backupTimestamp=');
}
