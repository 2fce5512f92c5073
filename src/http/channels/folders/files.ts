import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { downloadDisposition } from '../../../files/download-disposition.ts';
import { entityTagOf } from '../../../files/preconditions.ts';
import { uploadContentType } from '../../../files/upload-content-type.ts';
import type { FileRecord } from '../../../model/files.ts';
import { jsonAnswer, PAGE } from '../../schemas/answer.ts';
import { EXAMPLE_FILE, EXAMPLE_FILE_PAGE } from '../../schemas/examples.ts';
import { DOWNLOAD_RESPONSES, DownloadHeaders, documentStreamedUpload } from '../../schemas/file-bytes.ts';
import {
  DownloadQuery,
  FileParams,
  FileSchema,
  FolderParams,
  IfMatchHeaders,
  PageQuery,
  pageOf,
  UploadedFileSchema,
  UploadHeaders,
} from '../../schemas/files.ts';
import { channelErrorResponses, problemResponses } from '../../schemas/problem.ts';
import { WALLET_OR_SIGNED_LINK_SECURITY, WALLET_SECURITY } from '../../schemas/security.ts';
import { matchesEtag } from '../../server/entity-tags.ts';
import { parseRangeHeader } from '../support/byte-range.ts';
import { actorOf, channelOf, filePathOf, folderOf } from '../support/channel-scope.ts';
import { matchPrecondition, uploadPrecondition } from '../support/condition-headers.ts';
import type { FilesRouteDeps } from '../support/deps.ts';
import { pageRequestOf } from '../support/page-request.ts';
import { fileView } from '../support/views.ts';

const errors = channelErrorResponses;

/** Upload, download, list and delete the files of a folder; registered in the channel scope. */
export default async function fileRoutes(base: FastifyInstance, deps: FilesRouteDeps): Promise<void> {
  const app = base.withTypeProvider<TypeBoxTypeProvider>();
  // Uploads are streamed to storage as they arrive, whatever their type: no parser may buffer them.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.put(
    '/api/channels/:channelRef/folders/:folderName/files/:filename',
    {
      preHandler: app.enterChannel({ permission: 'files:write' }),
      config: { swaggerTransform: documentStreamedUpload },
      schema: {
        operationId: 'uploadFile',
        summary: 'Upload a file (the body is the bytes); a replaced file stays restorable as a version',
        description:
          'Conditional with If-Match (the ETag of the file it replaces, or * for any) or If-None-Match ' +
          '(* to create only): 412 PRECONDITION_FAILED when the live file does not meet it, and nothing changes. ' +
          "Stored with the Content-Type sent; without one (or with application/x-www-form-urlencoded, curl --data-binary's default), " +
          "with the usual type of the file name's extension, else application/octet-stream. A form (multipart/form-data, curl -F) is 415.",
        tags: ['files'],
        security: WALLET_SECURITY,
        params: FileParams,
        headers: UploadHeaders,
        response: {
          200: jsonAnswer(UploadedFileSchema, 'Replaced: the file as now stored', EXAMPLE_FILE),
          201: jsonAnswer(UploadedFileSchema, 'Created: the file as stored', EXAMPLE_FILE),
          ...errors,
          ...problemResponses(412, 413, 415, 507),
        },
      },
    },
    async (request, reply) => {
      const precondition = uploadPrecondition(request.headers);
      const path = filePathOf(request);
      // Before the body is read: a refused form upload stores nothing.
      const contentType = uploadContentType(request.headers['content-type'], path.filename);
      const body = (request.body as Readable | undefined) ?? emptyBody();
      const declared = request.headers['content-length'];
      const declaredBytes = declared === undefined ? undefined : Number(declared);
      const { created, file } = await deps.files.put(
        channelOf(request),
        actorOf(request),
        path,
        body,
        contentType,
        precondition,
        declaredBytes,
      );
      return reply
        .code(created ? 201 : 200)
        .header('ETag', entityTagOf(file))
        .send(fileView(file));
    },
  );

  app.get(
    '/api/channels/:channelRef/folders/:folderName/files/:filename',
    {
      preHandler: app.enterChannel({ permission: 'files:read', signedLinks: true }),
      // HEAD (Fastify's, from this route) answers the same headers without the bytes: documented too.
      config: { swagger: { exposeHeadRoute: true } },
      schema: {
        operationId: 'downloadFile',
        summary: 'Download a file (Range and ETag supported); with ?expires&signature from a signed link, no wallet headers are needed',
        tags: ['files'],
        security: WALLET_OR_SIGNED_LINK_SECURITY,
        params: FileParams,
        querystring: DownloadQuery,
        headers: DownloadHeaders,
        response: { ...DOWNLOAD_RESPONSES, ...errors, ...problemResponses(416) },
      },
    },
    async (request, reply) => {
      const channel = channelOf(request);
      const path = filePathOf(request);
      const file = await deps.files.stat(channel, path);
      const etag = entityTagOf(file);
      setDownloadHeaders(reply, file, etag);
      if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
      const range = parseRangeHeader(request.headers.range, file.size);
      if (range) {
        reply
          .code(206)
          .header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`)
          .header('Content-Length', range.end - range.start + 1);
      } else {
        reply.header('Content-Length', file.size);
      }
      // A HEAD answers the headers alone: the bytes are not even opened. An empty stream, because
      // Fastify's HEAD route drains a stream and keeps Content-Length, but sets 0 for no payload.
      if (request.method === 'HEAD') return reply.send(emptyBody());
      return reply.send(await deps.files.read(file, range));
    },
  );

  app.delete(
    '/api/channels/:channelRef/folders/:folderName/files/:filename',
    {
      preHandler: app.enterChannel({ permission: 'files:write' }),
      schema: {
        operationId: 'deleteFile',
        summary: 'Delete a file; it stays restorable as a version',
        description: 'Conditional with If-Match (the ETag of the file, or *): 412 PRECONDITION_FAILED when not met, and nothing changes.',
        tags: ['files'],
        security: WALLET_SECURITY,
        params: FileParams,
        headers: IfMatchHeaders,
        response: {
          204: { type: 'null', description: 'Deleted; restorable from its deleted version' },
          ...errors,
          ...problemResponses(412),
        },
      },
    },
    async (request, reply) => {
      const precondition = matchPrecondition(request.headers, 'DELETE of a file');
      await deps.files.delete(channelOf(request), actorOf(request), filePathOf(request), precondition);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/api/channels/:channelRef/folders/:folderName/files',
    {
      preHandler: app.enterChannel({ permission: 'files:read' }),
      schema: {
        operationId: 'listFiles',
        summary: 'List the files of a folder',
        tags: ['files'],
        security: WALLET_SECURITY,
        params: FolderParams,
        querystring: PageQuery,
        response: { 200: jsonAnswer(pageOf(FileSchema), PAGE, EXAMPLE_FILE_PAGE), ...errors },
      },
    },
    async (request) => {
      const page = await deps.files.list(channelOf(request), folderOf(request), pageRequestOf(request.query));
      return { items: page.items.map(fileView), next: page.next };
    },
  );
}

function setDownloadHeaders(reply: FastifyReply, file: FileRecord, etag: string): void {
  reply
    .type(file.contentType)
    .header('ETag', etag)
    .header('Accept-Ranges', 'bytes')
    .header('Last-Modified', new Date(file.updatedAt).toUTCString())
    .header('Content-Security-Policy', 'sandbox')
    .header('Content-Disposition', downloadDisposition(file.filename, file.contentType));
}

function emptyBody(): Readable {
  return Readable.from([]);
}
