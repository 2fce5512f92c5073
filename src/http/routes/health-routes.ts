import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors/app-error.ts';
import type { BlobStorage } from '../../storage/blob-storage.ts';
import type { MetadataStore } from '../../store/types.ts';
import { problemRef } from '../schemas/problem.ts';

const StatusSchema = Type.Object({ status: Type.String() });

export default async function healthRoutes(app: FastifyInstance, options: { store: MetadataStore; blobs: Pick<BlobStorage, 'ping'> }): Promise<void> {
  app.get('/healthz', {
    logLevel: 'warn',
    schema: { summary: 'The process is up', tags: ['health'], response: { 200: StatusSchema } },
  }, async () => ({ status: 'ok' }));

  app.get('/readyz', {
    logLevel: 'warn',
    schema: { summary: 'The metadata database and the file storage answer (a load balancer\'s health check)', tags: ['health'], response: { 200: StatusSchema, 503: problemRef } },
  }, async () => {
    try {
      await options.store.ping();
    } catch {
      throw new AppError('SERVICE_UNAVAILABLE', 'The metadata database does not answer');
    }
    await options.blobs.ping();
    return { status: 'ready' };
  });
}
