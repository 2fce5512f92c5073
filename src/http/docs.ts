import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { API_REFERENCE_ASSETS_PATH, apiReferenceAssets, missingAsset } from './api-reference/assets.ts';
import { EXAMPLE_REFERENCE_PAGE } from './schemas/examples.ts';
import { baseErrorResponses } from './schemas/problem.ts';
import { NO_SECURITY } from './schemas/security.ts';
import { pagePolicy, sendPagePolicy } from './server/page-policy.ts';
import { sendStaticFile } from './server/static-file.ts';

/**
 * The strict page policy, but for inline styles: Swagger UI (React) sets style attributes. Scripts
 * stay its own files, and nothing is fetched from or sent to another origin.
 */
const API_REFERENCE_CSP = pagePolicy({ inlineStyles: true });

/** Swagger UI's files have fixed names across versions: checked each time (304 while unchanged). */
const CACHE = 'no-cache';

/** GET /api/docs: a readable reference of /api/openapi.json (Swagger UI, served from node_modules). */
export default async function apiReferenceRoutes(app: FastifyInstance): Promise<void> {
  const assets = apiReferenceAssets();

  sendPagePolicy(app, API_REFERENCE_CSP);

  app.get(
    '/api/docs',
    {
      schema: {
        operationId: 'getApiReference',
        summary: 'This API reference, readable in a browser (Swagger UI, every file served by this service)',
        tags: ['docs'],
        security: NO_SECURITY,
        response: {
          200: { description: 'The reference page', content: { 'text/html': { schema: Type.String(), example: EXAMPLE_REFERENCE_PAGE } } },
          304: { type: 'null', description: 'Not modified (If-None-Match)' },
          ...baseErrorResponses,
        },
      },
    },
    async (request, reply) => sendStaticFile(request, reply, (await assets()).page, CACHE),
  );

  // People type the address with a trailing slash as often as without.
  app.get('/api/docs/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/api/docs', 308));

  app.get<{ Params: { name: string } }>(`${API_REFERENCE_ASSETS_PATH}/:name`, { schema: { hide: true } }, async (request, reply) => {
    const file = (await assets()).assets.get(request.params.name);
    if (file === undefined) throw missingAsset(request.params.name);
    return sendStaticFile(request, reply, file, CACHE);
  });
}
