import type { FastifyInstance } from 'fastify';
import { jsonAnswer } from './schemas/answer.ts';
import { StatusSchema } from './schemas/health.ts';
import { baseErrorResponses } from './schemas/problem.ts';
import { NO_SECURITY } from './schemas/security.ts';

/** GET /healthz: the process is up. */
export default async function healthRoute(app: FastifyInstance): Promise<void> {
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
}
