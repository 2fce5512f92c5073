import type { SwaggerTransform } from '@fastify/swagger';
import { Type } from 'typebox';
import { EXAMPLE_FILE_BYTES } from './examples.ts';
import { BYTE_COUNT, CONTENT_RANGE, ENTITY_TAG, HTTP_DATE, responseHeader } from './response-header-shapes.ts';

/** A file's bytes, of the type it was uploaded with (application/octet-stream when none was usable). */
const bytes = (example: string) => ({ '*/*': { schema: Type.String({ format: 'binary' }), example } });

const REPRESENTATION_HEADERS = {
  ETag: responseHeader('"<sha256>", the strong tag an If-None-Match or a later If-Match names', ENTITY_TAG, true),
  'Last-Modified': responseHeader('When the file was last written, an HTTP date', HTTP_DATE, true),
  'Accept-Ranges': responseHeader('bytes', { enum: ['bytes'] }, true),
  'Content-Disposition': responseHeader(
    'attachment; filename*=… except for plain text, images, audio and video (inline)',
    { pattern: '^(attachment|inline); filename="[^"]*"; filename\\*=UTF-8\'\'\\S*$' },
    true,
  ),
  'Content-Security-Policy': responseHeader('sandbox: a download never runs as a page of the API', { enum: ['sandbox'] }, true),
};

/** A download's conditions (sent by browsers and curl alike), documented; their format is checked by the route. */
export const DownloadHeaders = Type.Object({
  range: Type.Optional(Type.String({ description: 'One range, bytes=start-end, bytes=start- or bytes=-suffix: 206 with that part' })),
  'if-none-match': Type.Optional(Type.String({ description: 'ETags (or *): 304 when the file still has one of them' })),
});

/** The answers of a download (GET and HEAD), besides the errors. */
export const DOWNLOAD_RESPONSES = {
  200: {
    description: 'The whole file',
    headers: { ...REPRESENTATION_HEADERS, 'Content-Length': responseHeader('The file size in bytes', BYTE_COUNT, true) },
    content: bytes(EXAMPLE_FILE_BYTES),
  },
  206: {
    description: 'The requested range of the file',
    headers: {
      ...REPRESENTATION_HEADERS,
      'Content-Range': responseHeader('bytes start-end/size', CONTENT_RANGE, true),
      'Content-Length': responseHeader('The length of the range', BYTE_COUNT, true),
    },
    // Range: bytes=0-18
    content: bytes(EXAMPLE_FILE_BYTES.slice(0, 19)),
  },
  304: {
    type: 'null',
    description: 'Not modified: If-None-Match names the current ETag; no body',
    headers: { ETag: REPRESENTATION_HEADERS.ETag },
  },
};

/**
 * The upload's request body, for the document only. The route has no body schema, on purpose:
 * the body is a stream, and Fastify would validate it against the schema of its media type.
 */
export const documentStreamedUpload: SwaggerTransform = ({ schema, url }) => ({
  url,
  schema: {
    ...schema,
    body: {
      content: {
        '*/*': {
          schema: Type.String({
            format: 'binary',
            description:
              "The file's bytes, of any type, streamed to storage as they arrive (up to MAX_FILE_BYTES); its Content-Type is stored with it",
          }),
        },
      },
    },
  },
});
