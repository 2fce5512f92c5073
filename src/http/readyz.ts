import type { FastifyInstance } from 'fastify';
import type { Readiness } from '../observability/readiness.ts';
import { jsonAnswer } from './schemas/answer.ts';
import { StatusSchema } from './schemas/health.ts';
import { baseErrorResponses, problemResponses } from './schemas/problem.ts';
import { NO_SECURITY } from './schemas/security.ts';

/** GET /readyz: the metadata database and the file storage answer. */
export default async function readinessRoute(app: FastifyInstance, options: { readiness: Readiness }): Promise<void> {
  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'getReadiness',
        summary: "The metadata database and the file storage answer (a load balancer's health check)",
        tags: ['health'],
        security: NO_SECURITY,
        response: {
          200: jsonAnswer(StatusSchema('ready'), 'Ready: both answer', { status: 'ready' }),
          ...baseErrorResponses,
          ...problemResponses(503),
        },
      },
    },
    async () => {
      await options.readiness.check();
      return { status: 'ready' };
    },
  );
}
