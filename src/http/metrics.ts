import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import type { Metrics } from '../observability/metrics.ts';

/**
 * GET /metrics in Prometheus text format: open like the health checks unless METRICS_TOKEN is
 * set, then only with `Authorization: Bearer <token>`. Every answered request is counted here.
 */
export default async function metricsRoute(app: FastifyInstance, options: { metrics: Metrics; token: string | undefined }): Promise<void> {
  const { metrics, token } = options;

  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (token !== undefined && !bearerMatches(request.headers.authorization, token)) {
      throw new AppError('AUTH_HEADERS_MISSING', 'Metrics need Authorization: Bearer <METRICS_TOKEN>');
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(header ?? '');
  const expected = Buffer.from(`Bearer ${token}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
