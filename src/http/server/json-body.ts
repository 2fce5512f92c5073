import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The restore operation is sent with Content-Type: application/json and no body, which Fastify
 * refuses by default; an empty JSON body is read as "no body" instead. Non-empty bodies go
 * through Fastify's own parser, prototype-poisoning checks included.
 */
async function jsonBody(app: FastifyInstance): Promise<void> {
  const defaultParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    return defaultParser(request, body as string, done);
  });
}

export default fp(jsonBody, { name: 'json-body' });
