import type { SwaggerTransform } from '@fastify/swagger';
import { Type } from 'typebox';
import { channelRef } from './files.ts';
import { BYTE_COUNT, ENTITY_TAG, HTTP_DATE, responseHeader } from './response-header-shapes.ts';

export const UploadParams = Type.Object({
  channelRef,
  // No pattern: an id that is not an upload's is answered as any unknown one, 404, after the sign-in.
  uploadId: Type.String({
    description: 'The upload, as the Location of its creation names it',
    examples: ['5a59d229607763bd22448201d3ad300c'],
  }),
});

const TUS_RESUMABLE = responseHeader('The tus version of the answer', { enum: ['1.0.0'] }, true);
const UPLOAD_OFFSET = responseHeader('The bytes stored so far', BYTE_COUNT, true);
const UPLOAD_EXPIRES = responseHeader('When the unfinished upload expires (UPLOAD_EXPIRY past its last PATCH)', HTTP_DATE, false);
const FILE_ETAG = responseHeader("The file's ETag, once the upload completed and became the file", ENTITY_TAG, false);

const noBody = (description: string, headers: Record<string, unknown>) => ({ type: 'null', description, headers }) as const;

export const CREATION_RESPONSES = {
  201: noBody('Created: the upload, at Location; with a body (creation-with-upload), Upload-Offset says how much of it was stored', {
    'Tus-Resumable': TUS_RESUMABLE,
    Location: responseHeader(
      'The upload URL: HEAD, PATCH and DELETE it with the same wallet headers',
      { pattern: '^/api/channels/' },
      true,
    ),
    'Upload-Offset': UPLOAD_OFFSET,
    'Upload-Expires': UPLOAD_EXPIRES,
    ETag: FILE_ETAG,
  }),
};

export const STATUS_RESPONSES = {
  200: noBody('Where the upload stands (no body)', {
    'Tus-Resumable': TUS_RESUMABLE,
    'Upload-Offset': UPLOAD_OFFSET,
    'Upload-Length': responseHeader('The length declared (absent while deferred)', BYTE_COUNT, false),
    'Upload-Defer-Length': responseHeader('1 while the length is deferred', { enum: ['1'] }, false),
    'Upload-Metadata': responseHeader('The Upload-Metadata the creation sent', {}, true),
    'Upload-Expires': UPLOAD_EXPIRES,
    ETag: FILE_ETAG,
    'Cache-Control': responseHeader('Never cached', { enum: ['no-store'] }, true),
  }),
};

export const PATCH_RESPONSES = {
  204: noBody('Stored: Upload-Offset is the new offset; the last bytes make the file, whose ETag is answered', {
    'Tus-Resumable': TUS_RESUMABLE,
    'Upload-Offset': UPLOAD_OFFSET,
    'Upload-Expires': UPLOAD_EXPIRES,
    ETag: FILE_ETAG,
  }),
};

export const TERMINATION_RESPONSES = {
  204: noBody('Terminated: the upload and its bytes are gone', { 'Tus-Resumable': TUS_RESUMABLE }),
};

export const UPLOADS_DESCRIPTION =
  'tus 1.0.0 resumable uploads (docs/uploads.md), with the creation, creation-with-upload, creation-defer-length, termination, ' +
  'expiration and checksum (sha256) extensions. Every request but OPTIONS carries Tus-Resumable: 1.0.0 and the wallet headers; ' +
  'an upload is bound to the admin, channel, folder and file name it was created for. Upload-Metadata names the file: folder and ' +
  'filename (base64), optionally contentType. The last PATCH makes the file exactly as a PUT does (If-Match / If-None-Match sent ' +
  'with the creation checked then, one audit entry), and answers its ETag.';

/**
 * A creation's (optional) or a PATCH's body, for the document only: the route reads it as a
 * stream (no body schema, as for a PUT of a file's bytes).
 */
export function documentUploadBytes(description: string, required: boolean): SwaggerTransform {
  return ({ schema, url }) => ({
    url,
    schema: {
      ...schema,
      body: {
        required,
        content: { 'application/offset+octet-stream': { schema: Type.String({ format: 'binary', description }) } },
      },
    },
  });
}
