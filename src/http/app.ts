import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { FailureLimiter } from '../auth/limits/failure-limiter.ts';
import type { WalletAuthenticator } from '../auth/wallet-authenticator.ts';
import type { Config } from '../config/config.ts';
import { type Logger, requestLineWriter } from '../logging/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import type { Readiness } from '../observability/readiness.ts';
import { SERVICE_VERSION } from '../version.ts';
import apiReferenceRoutes from './api-reference/docs.ts';
import openapi from './api-reference/openapi.ts';
import authRoutes from './auth/auth-routes.ts';
import walletAuth from './auth/wallet-auth.ts';
import channelRoutes from './channels/channel-routes.ts';
import type { FilesRouteDeps } from './channels/deps.ts';
import fileRoutes from './channels/files.ts';
import historyRoutes from './channels/history.ts';
import linkedChannelsRoute from './channels/list.ts';
import restoreRoute from './channels/restore.ts';
import channelScope from './channels/scope.ts';
import scopeRestoreRoutes from './channels/scope-restore.ts';
import { loadConsoleAssets } from './console/assets.ts';
import consoleRoutes from './console/pages.ts';
import healthRoutes from './health/health.ts';
import metricsRoute from './metrics/metrics.ts';
import { BodyIdleGuard } from './server/body-idle-guard.ts';
import { clientErrorAnswers } from './server/client-errors.ts';
import errorHandler, { sendRouterProblem } from './server/error-handler.ts';
import httpFraming from './server/http-framing.ts';
import jsonBody from './server/json-body.ts';
import { lazyRequestLogger } from './server/lazy-request-logger.ts';
import queryParameters from './server/query-parameters.ts';
import { RequestLog } from './server/request-log.ts';
import responseHeaders, { baseHeaders } from './server/response-headers.ts';

export interface AppDeps {
  config: Config;
  authenticator: WalletAuthenticator;
  failures: FailureLimiter;
  metrics: Metrics;
  logger: Logger;
  files: FilesRouteDeps;
  readiness: Readiness;
  /** The built console (index.html, assets/); dist/console unless given (tests: one never built). */
  consoleDir?: string;
}

const MAX_ENCODED_SEGMENT = 255 * 3;

/** Builds the HTTP application without listening; production and tests use this same function. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, authenticator } = deps;
  const everyAnswer = baseHeaders(config.corsExtras);
  const { answerClientError, answerConnect, answerStalledBody, answerUnmetExpectation } = clientErrorAnswers(everyAnswer);
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: () => randomUUID(),
    logController: new RequestLog(requestLineWriter(deps.logger)),
    childLoggerFactory: lazyRequestLogger,
    // No deadline for a whole request: it would cap an upload's duration, hence its size on a
    // slow line. The head has REQUEST_TIMEOUT (headersTimeout), a body BODY_IDLE_TIMEOUT (below).
    requestTimeout: 0,
    keepAliveTimeout: config.limits.keepAliveSeconds * 1000,
    bodyLimit: config.limits.maxJsonBytes,
    http: {
      maxHeaderSize: config.limits.maxHeaderBytes,
      headersTimeout: config.limits.requestTimeoutSeconds * 1000,
      // Node looks for timed-out request heads every 30 s by default, which would let a slow
      // client hold a connection up to 30 s past REQUEST_TIMEOUT.
      connectionsCheckingInterval: 1000,
      // Checked in the http-framing plugin instead, so that the refusal has the one error format.
      requireHostHeader: false,
    },
    clientErrorHandler: answerClientError,
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A file name may have 255 bytes of UTF-8, which percent-encoding can triple; the router's
    // default (100 characters) would refuse legitimate names with 414.
    routerOptions: { maxParamLength: MAX_ENCODED_SEGMENT },
    // Errors the router raises before any route runs (414, malformed escapes) get the one format too.
    frameworkErrors: (error, request, reply) => sendRouterProblem(request, reply, error, everyAnswer),
  });

  app.server.maxConnections = config.limits.maxConnections;
  app.server.on('checkExpectation', answerUnmetExpectation);
  app.server.on('connect', answerConnect);
  app.server.on('request', new BodyIdleGuard(config.limits.bodyIdleSeconds * 1000, answerStalledBody).watch);
  await app.register(errorHandler, { onError: (error) => deps.metrics.error(error.code, error.status) });
  // Before any route: its onRoute hook gives every route the refusal of unknown query parameters.
  await app.register(queryParameters);
  // Registered early so that its onResponse hook sees every route.
  await app.register(fp(metricsRoute), { metrics: deps.metrics, token: config.metricsToken });
  await app.register(responseHeaders, { corsOrigins: config.corsOrigins, corsExtras: config.corsExtras });
  await app.register(httpFraming);
  await app.register(jsonBody);
  await app.register(openapi, { publicBaseUrl: config.publicBaseUrl, version: SERVICE_VERSION });
  await app.register(walletAuth, { authenticator, failures: deps.failures });

  await app.register(healthRoutes, { readiness: deps.readiness });
  await app.register(consoleRoutes, { assets: await loadConsoleAssets(deps.consoleDir) });
  await app.register(apiReferenceRoutes);
  // The answers of the credentials that repeat: a short list (each answer is a couple of KiB).
  await app.register(authRoutes, { authenticator, answerCacheSize: Math.min(config.auth.signatureCacheSize, 1000) });
  await app.register(linkedChannelsRoute, deps.files);
  // Every route on a channel, in one scope whose hook signs the caller in and resolves the
  // channel, the route's permission and the named file once (see plugins/channel-scope.ts).
  await app.register(async function channelRoutesScope(scope) {
    await scope.register(channelScope, { access: deps.files.access, linkSigner: deps.files.linkSigner });
    // Own encapsulation context: it replaces the body parsers to stream uploads.
    await scope.register(fileRoutes, deps.files);
    await scope.register(restoreRoute, deps.files);
    await scope.register(scopeRestoreRoutes, deps.files);
    await scope.register(channelRoutes, deps.files);
    await scope.register(historyRoutes, deps.files);
  });
  return app;
}
