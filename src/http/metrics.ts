import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, onResponseHookHandler, RouteOptions } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import type { Metrics } from '../observability/metrics.ts';

/**
 * GET /metrics in Prometheus text format: open like the health checks unless METRICS_TOKEN is
 * set, then only with `Authorization: Bearer <token>`. Every answered request is counted here.
 */
export default async function metricsRoute(app: FastifyInstance, options: { metrics: Metrics; token: string | undefined }): Promise<void> {
  const { metrics, token } = options;

  // Each route counts its answers under its URL, known when it is declared: request.routeOptions
  // would build an object of a dozen members per request to tell it (bench: auth-warm).
  app.addHook('onRoute', (route: RouteOptions) => {
    const url = route.url;
    const counted: onResponseHookHandler = (request, reply, done) => {
      metrics.request(request.method, url, reply.statusCode, reply.elapsedTime / 1000);
      done();
    };
    route.onResponse = [...[route.onResponse ?? []].flat(), counted];
  });
  // What no route answered (the router's 404s and its own errors).
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) metrics.request(request.method, 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
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
