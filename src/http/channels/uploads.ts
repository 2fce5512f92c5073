import type { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.ts';
import type { Patch } from '../../files/uploads/resumable-uploads.ts';
import { parseUploadMetadata } from '../../files/uploads/upload-metadata.ts';
import { ChannelParams } from '../schemas/files.ts';
import { channelErrorResponses, problemResponses } from '../schemas/problem.ts';
import { WALLET_SECURITY } from '../schemas/security.ts';
import {
  CREATION_RESPONSES,
  documentUploadBytes,
  PATCH_RESPONSES,
  STATUS_RESPONSES,
  TERMINATION_RESPONSES,
  UPLOADS_DESCRIPTION,
  UploadParams,
} from '../schemas/uploads.ts';
import { actorOf, channelOf } from './support/channel-scope.ts';
import { uploadPrecondition } from './support/condition-headers.ts';
import type { FilesRouteDeps } from './support/deps.ts';
import {
  byteCountHeader,
  checkOffsetStream,
  checksumHeader,
  checkTusResumable,
  creationLength,
  hasBody,
  standing,
  TUS_EXTENSIONS,
  TUS_VERSION,
} from './support/tus-headers.ts';

const errors = channelErrorResponses;

/**
 * Resumable uploads, tus 1.0.0 (docs/uploads.md): the creation URL and each upload's URL, in the
 * channel scope. Own encapsulation context: its bodies stream to the staging as they arrive, and
 * every answer carries Tus-Resumable.
 */
export default async function uploadRoutes(base: FastifyInstance, deps: Pick<FilesRouteDeps, 'uploads'>): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('Tus-Resumable', TUS_VERSION);
    if (reply.statusCode === 412) reply.header('Tus-Version', TUS_VERSION);
    done(null, payload);
  });

  app.post(
    '/api/channels/:channelRef/uploads',
    {
      config: {
        streamedBody: true,
        swaggerTransform: documentUploadBytes(
          'Optional (creation-with-upload): the first bytes of the file, with Content-Type application/offset+octet-stream',
          false,
        ),
      },
      preHandler: app.enterChannel({ permission: 'files:write' }),
      schema: {
        operationId: 'createUpload',
        summary: 'Create a resumable (tus) upload of one file; with a body, its first bytes',
        description: UPLOADS_DESCRIPTION,
        tags: ['files'],
        security: WALLET_SECURITY,
        params: ChannelParams,
        response: { ...CREATION_RESPONSES, ...errors, ...problemResponses(412, 413, 415, 429, 507) },
      },
    },
    async (request, reply) => {
      checkTusResumable(request);
      const length = creationLength(request);
      const metadata = request.headers['upload-metadata'];
      const target = parseUploadMetadata(typeof metadata === 'string' ? metadata : undefined);
      const precondition = uploadPrecondition(request.headers);
      const first = hasBody(request) ? patchOf(request) : undefined;
      const channel = channelOf(request);
      const upload = await deps.uploads.create(
        channel,
        actorOf(request),
        { target, metadata: metadata as string, length, precondition },
        first,
      );
      return standing(reply, upload)
        .code(201)
        .header('Location', `/api/channels/${encodeURIComponent(channel.id)}/uploads/${upload.uploadId}`)
        .send();
    },
  );

  app.route({
    method: 'HEAD',
    url: '/api/channels/:channelRef/uploads/:uploadId',
    // A HEAD of its own, not one made from a GET: documented as it is, without the transform for
    // those, and under its own name (@fastify/swagger suffixes every HEAD's with -head).
    config: {
      swagger: { exposeHeadRoute: true },
      swaggerTransform: ({ schema, url }) => ({ url, schema: { ...schema, operationId: 'uploadStatus' } }),
    },
    preHandler: app.enterChannel({ permission: 'files:write' }),
    schema: {
      operationId: 'uploadStatus',
      summary: 'Where a resumable upload stands: Upload-Offset, and Upload-Length or Upload-Defer-Length',
      tags: ['files'],
      security: WALLET_SECURITY,
      params: UploadParams,
      response: { ...STATUS_RESPONSES, ...errors, ...problemResponses(412) },
    },
    handler: async (request, reply) => {
      checkTusResumable(request);
      const upload = await deps.uploads.status(channelOf(request), actorOf(request), request.params.uploadId);
      standing(reply, upload).header('Cache-Control', 'no-store').header('Upload-Metadata', upload.metadata);
      if (upload.length === null) reply.header('Upload-Defer-Length', '1');
      else reply.header('Upload-Length', String(upload.length));
      return reply.code(200).send();
    },
  });

  app.patch(
    '/api/channels/:channelRef/uploads/:uploadId',
    {
      config: { streamedBody: true, swaggerTransform: documentUploadBytes('The next bytes of the file, from Upload-Offset', true) },
      preHandler: app.enterChannel({ permission: 'files:write' }),
      schema: {
        operationId: 'appendToUpload',
        summary: 'Send bytes of a resumable upload from Upload-Offset (application/offset+octet-stream)',
        tags: ['files'],
        security: WALLET_SECURITY,
        params: UploadParams,
        response: { ...PATCH_RESPONSES, ...errors, ...problemResponses(409, 412, 413, 415, 460, 507) },
      },
    },
    async (request, reply) => {
      checkTusResumable(request);
      const offset = byteCountHeader(request, 'upload-offset');
      if (offset === undefined) throw new AppError('VALIDATION_FAILED', 'Upload-Offset is required');
      const patch = { ...patchOf(request), offset, length: byteCountHeader(request, 'upload-length') };
      const upload = await deps.uploads.append(channelOf(request), actorOf(request), request.params.uploadId, patch);
      return standing(reply, upload).code(204).send();
    },
  );

  app.delete(
    '/api/channels/:channelRef/uploads/:uploadId',
    {
      preHandler: app.enterChannel({ permission: 'files:write' }),
      schema: {
        operationId: 'terminateUpload',
        summary: 'Terminate a resumable upload: its bytes are removed',
        tags: ['files'],
        security: WALLET_SECURITY,
        params: UploadParams,
        response: { ...TERMINATION_RESPONSES, ...errors, ...problemResponses(412) },
      },
    },
    async (request, reply) => {
      checkTusResumable(request);
      await deps.uploads.terminate(channelOf(request), actorOf(request), request.params.uploadId);
      return reply.code(204).send();
    },
  );
}

/**
 * tus discovery: OPTIONS on the creation URL answers the version, extensions, largest size and
 * checksum algorithm, without sign-in (it names nothing of any channel). Outside the channel scope.
 */
export async function uploadDiscoveryRoute(app: FastifyInstance, options: { maxFileBytes: number }): Promise<void> {
  app.options('/api/channels/:channelRef/uploads', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .code(204)
      .header('Tus-Resumable', TUS_VERSION)
      .header('Tus-Version', TUS_VERSION)
      .header('Tus-Extension', TUS_EXTENSIONS)
      .header('Tus-Max-Size', String(options.maxFileBytes))
      .header('Tus-Checksum-Algorithm', 'sha256')
      .send(),
  );
}

/** A PATCH's (or creation-with-upload's) bytes, with their checksum. */
function patchOf(request: FastifyRequest): Omit<Patch, 'offset'> {
  checkOffsetStream(request);
  return { body: request.body as Readable, sha256: checksumHeader(request) };
}
