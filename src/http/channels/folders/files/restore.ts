import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { EXAMPLE_FILE_URL } from '../../../schemas/examples.ts';
import { FileParams, IfMatchHeaders, RestoreQuery } from '../../../schemas/files.ts';
import { channelErrorResponses, problemResponses } from '../../../schemas/problem.ts';
import { responseHeader, VERSION_ID } from '../../../schemas/response-header-shapes.ts';
import { WALLET_SECURITY } from '../../../schemas/security.ts';
import type { RefusalAudit } from '../../support/channel-lookup.ts';
import { actorOf, channelOf, filePathOf } from '../../support/channel-scope.ts';
import { matchPrecondition } from '../../support/condition-headers.ts';
import type { FilesRouteDeps } from '../../support/deps.ts';
import { requireEmptyRestoreBody } from '../../support/restore-body.ts';

/** The contract's content type, byte for byte. The URL in the body is ASCII (percent-encoded). */
export const RESTORE_CONTENT_TYPE = 'text/plain;charset=ISO-8859-1';
/**
 * The version keeping what the restore replaced, for an undo (?versionId=). A header, because the
 * contract fixes the body to the bare URL; absent when nothing was replaced.
 */
export const KEPT_VERSION_HEADER = 'X-Kept-Version-Id';

/** The contract's restore of one file; registered in the channel scope, its refusals audited like the restore's own. */
export default async function restoreRoute(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/api/channels/:channelRef/folders/:folderName/files/:filename/restore',
    {
      preHandler: app.enterChannel({ permission: 'files:restore', checkBody: requireEmptyBody, auditRefusals: restoreRefusals }),
      schema: {
        operationId: 'restoreFile',
        summary: 'Restore a file from a backup (or a kept version, or its state at an instant); answers the URL of the restored file',
        description:
          'One of backupTimestamp, versionId and at (RFC 3339: the file as it was then; 404 INSTANT_NOT_RETAINED when ' +
          'retention no longer holds that state). The replaced bytes are kept as a version first, so every restore can be undone with ?versionId=: ' +
          `the ${KEPT_VERSION_HEADER} response header names that version (absent when nothing was replaced: ` +
          'the file did not exist, or already held these bytes). Conditional with If-Match (the ETag of the ' +
          'file it replaces, or *): 412 PRECONDITION_FAILED when not met, and nothing changes.',
        tags: ['files'],
        security: WALLET_SECURITY,
        params: FileParams,
        headers: IfMatchHeaders,
        querystring: RestoreQuery,
        // No body schema: Fastify would refuse the contract's empty body as "not an object".
        response: {
          // Declared under its media type: the document says what is sent, and Fastify, which
          // serializes JSON only, sends the string as it is.
          200: {
            description: 'The URL of the restored file, percent-encoded (ASCII), no newline',
            headers: {
              // Absent when nothing was replaced.
              [KEPT_VERSION_HEADER]: responseHeader(
                'The version (ver_…) that keeps the replaced bytes; restore it with ?versionId= to undo',
                VERSION_ID,
                false,
              ),
            },
            content: { [RESTORE_CONTENT_TYPE]: { schema: Type.String({ format: 'uri' }), example: EXAMPLE_FILE_URL } },
          },
          ...channelErrorResponses,
          ...problemResponses(412, 413, 415, 507),
        },
      },
    },
    async (request, reply) => {
      const precondition = matchPrecondition(request.headers, 'a restore of a file');
      const { backupTimestamp, versionId, at } = request.query;
      const source = { backupTimestamp, versionId, at };
      const { file, keptVersionId } = await deps.restores.restore(
        channelOf(request),
        actorOf(request),
        filePathOf(request),
        source,
        precondition,
      );
      if (keptVersionId !== null) reply.header(KEPT_VERSION_HEADER, keptVersionId);
      return reply
        .code(200)
        .type(RESTORE_CONTENT_TYPE)
        .send(await deps.fileUrls(file));
    },
  );
}

/** The backup is named in the query: a body naming one (`{"backupTimestamp": …}`) is refused, not ignored. */
function requireEmptyBody(body: unknown): void {
  requireEmptyRestoreBody(body, 'name the backup with backupTimestamp, versionId or at');
}

/** A refused restore is audited as a restore, with the backup, version or instant it asked for. */
function restoreRefusals(request: FastifyRequest): RefusalAudit {
  const { backupTimestamp, versionId, at } = request.query as Static<typeof RestoreQuery>;
  return { action: 'restore', asked: { backupTimestamp, versionId, at } };
}
