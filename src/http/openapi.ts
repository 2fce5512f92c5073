import swagger, { type SwaggerTransform } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Type } from 'typebox';
import { operationExamples } from './api-reference/operation-examples.ts';
import { EXAMPLE_OPENAPI_DOCUMENT } from './schemas/examples.ts';
import { baseErrorResponses, ProblemSchema } from './schemas/problem.ts';
import { requiredResponseHeaders } from './schemas/response-header-shapes.ts';
import { NO_SECURITY, SECURITY_SCHEMES } from './schemas/security.ts';
import { TAGS } from './schemas/tags.ts';
import { webhooksSection } from './schemas/webhook-events.ts';

/** OpenAPI 3.1: its schemas are JSON Schema (2020-12), so `type: 'null'` and the route schemas carry over as they are. */
const OPENAPI_VERSION = '3.1.0';

/**
 * A HEAD operation (Fastify's, made from a GET that asks for it) answers the GET's status and
 * headers, never a body.
 */
const documentHead: SwaggerTransform = ({ schema, url, route }) => {
  if (route.method !== 'HEAD' || schema === undefined) return { schema, url };
  const responses = Object.entries((schema.response ?? {}) as Record<string, { description?: string; headers?: object }>);
  return {
    url,
    schema: {
      ...schema,
      // A name a generated client can use as a method (@fastify/swagger names it downloadFile-head).
      ...(typeof schema.operationId === 'string' ? { operationId: `${schema.operationId.replace(/-head$/, '')}Headers` } : {}),
      summary: `The headers of GET ${url.replace(/:(\w+)/g, '{$1}')}, without the body`,
      response: Object.fromEntries(
        responses.map(([status, { description, headers }]) => [status, { type: 'null', description, ...(headers ? { headers } : {}) }]),
      ),
    },
  };
};

/** What GET /api/openapi.json answers, as far as a client needs to know: an OpenAPI document. */
const OPENAPI_DOCUMENT_SCHEMA = Type.Object(
  {
    openapi: Type.String(),
    info: Type.Object({ title: Type.String(), version: Type.String() }, { additionalProperties: true }),
    paths: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

/** OpenAPI 3 generated from the route schemas; must be registered before the routes. */
async function openapi(app: FastifyInstance, options: { publicBaseUrl: string; version: string }): Promise<void> {
  app.addSchema(ProblemSchema);
  await app.register(swagger, {
    openapi: {
      openapi: OPENAPI_VERSION,
      info: {
        title: 'wallet-admin',
        version: options.version,
        description:
          'Administration of multi-tenant channels; callers sign in with an Ethereum wallet: the three headers X-WAL, X-SIG and ' +
          'X-MES together (`npm exec --no -- wallet-admin sign` prints them). Every error is application/problem+json (RFC 9457) with a stable `code`; ' +
          'every time is an RFC 3339 UTC string.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: options.publicBaseUrl }],
      tags: TAGS,
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: documentHead,
    // Examples last: they read the headers' and parameters' final shape.
    transformObject: (object) => ({ ...operationExamples(requiredResponseHeaders(object)), webhooks: webhooksSection() }) as never,
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });

  let document: string | undefined;
  app.get(
    '/api/openapi.json',
    {
      schema: {
        operationId: 'getOpenApiDocument',
        summary: 'This document (OpenAPI 3.1)',
        tags: ['docs'],
        security: NO_SECURITY,
        response: {
          200: {
            description: 'The OpenAPI document',
            content: { 'application/json': { schema: OPENAPI_DOCUMENT_SCHEMA, example: EXAMPLE_OPENAPI_DOCUMENT } },
          },
          ...baseErrorResponses,
        },
      },
    },
    // Sent as a string, which Fastify does not serialize again: the response schema above only documents it.
    async (_request, reply) => {
      document ??= JSON.stringify(app.swagger());
      return reply.type('application/json').send(document);
    },
  );
}

export default fp(openapi, { name: 'openapi' });
