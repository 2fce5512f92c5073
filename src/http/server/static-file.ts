import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { matchesEtag } from './entity-tags.ts';

/** A file the service serves from memory: the console's, the API reference's. */
export interface StaticFile {
  body: Buffer;
  contentType: string;
  /** A strong validator: the hash of the bytes, quoted. */
  etag: string;
}

export function staticFile(body: Buffer, contentType: string): StaticFile {
  return { body, contentType, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

/** Sends it with its ETag and `cacheControl`, or 304 when If-None-Match names it. */
export function sendStaticFile(request: FastifyRequest, reply: FastifyReply, file: StaticFile, cacheControl: string): FastifyReply {
  // The API's no-store, Pragma and Expires (plugins/response-headers.ts) would forbid the caching
  // these files are made for.
  reply.removeHeader('Pragma').removeHeader('Expires').header('Cache-Control', cacheControl).header('ETag', file.etag);
  if (matchesEtag(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  return reply.type(file.contentType).send(file.body);
}
