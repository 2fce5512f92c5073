import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Readiness } from '../../observability/readiness.ts';
import { problemRef } from '../schemas/problem.ts';

const StatusSchema = Type.Object({ status: Type.String() });

export default async function healthRoutes(app: FastifyInstance, options: { readiness: Readiness }): Promise<void> {
  app.get(
    '/healthz',
    {
      logLevel: 'warn',
      schema: { summary: 'The process is up', tags: ['health'], response: { 200: StatusSchema } },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      logLevel: 'warn',
      schema: {
        summary: "The metadata database and the file storage answer (a load balancer's health check)",
        tags: ['health'],
        response: { 200: StatusSchema, 503: problemRef },
      },
    },
    async () => {
      await options.readiness.check();
      return { status: 'ready' };
    },
  );
}
