import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Readiness } from '../../observability/readiness.ts';
import { jsonAnswer } from '../schemas/answer.ts';
import { baseErrorResponses, problemResponses } from '../schemas/problem.ts';
import { NO_SECURITY } from '../schemas/security.ts';

const StatusSchema = (status: string) => Type.Object({ status: Type.Literal(status) });

export default async function healthRoutes(app: FastifyInstance, options: { readiness: Readiness }): Promise<void> {
  app.get(
    '/healthz',
    {
      logLevel: 'warn',
      schema: {
        operationId: 'getHealth',
        summary: 'The process is up',
        tags: ['health'],
        security: NO_SECURITY,
        response: { 200: jsonAnswer(StatusSchema('ok'), 'Up', { status: 'ok' }), ...baseErrorResponses },
      },
    },
    async () => ({ status: 'ok' }),
  );

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
