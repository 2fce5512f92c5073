import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ProblemSchema } from '../schemas/problem.ts';

/** OpenAPI 3 generated from the route schemas; must be registered before the routes. */
async function openapi(app: FastifyInstance, options: { publicBaseUrl: string; version: string }): Promise<void> {
  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'wallet-admin',
        version: options.version,
        description: 'Administration of multi-tenant channels; callers sign in with an Ethereum wallet (X-WAL, X-SIG, X-MES).',
      },
      servers: [{ url: options.publicBaseUrl }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

export default fp(openapi, { name: 'openapi' });
