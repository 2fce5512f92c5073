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
import type { AdministrationRouteDeps } from './admins/support/deps.ts';
import walletChallengeRoute from './admins/wallets/challenge.ts';
import walletRoutes from './admins/wallets.ts';
import adminRoutes from './admins.ts';
import auditExportRoute from './audit/export.ts';
import auditHeadRoute from './audit/head.ts';
import tenantAuditRoute from './audit.ts';
import logoutRoute from './auth/logout.ts';
import nonceRoute from './auth/nonce.ts';
import authTestRoute from './auth/test.ts';
import walletAuth from './auth/wallet-auth.ts';
import channelAdminRoutes from './channels/admins.ts';
import channelArchiveRoute from './channels/archive.ts';
import auditRoute from './channels/audit.ts';
import backupLockRoutes from './channels/backups/lock.ts';
import backupsRoutes from './channels/backups.ts';
import changesRoute from './channels/changes.ts';
import folderArchiveRoute from './channels/folders/archive.ts';
import deletedFilesRoute from './channels/folders/deleted.ts';
import fileRestoreRoute from './channels/folders/files/restore.ts';
import fileVersionsRoute from './channels/folders/files/versions.ts';
import fileRoutes from './channels/folders/files.ts';
import folderRestoreRoute from './channels/folders/restore.ts';
import foldersRoute from './channels/folders.ts';
import channelPolicyRoutes from './channels/policy.ts';
import channelQuotaRoutes from './channels/quota.ts';
import channelRestoreRoute from './channels/restore.ts';
import channelScope from './channels/support/channel-scope.ts';
import type { FilesRouteDeps } from './channels/support/deps.ts';
import uploadRoutes, { uploadDiscoveryRoute } from './channels/uploads.ts';
import channelUsageRoute from './channels/usage.ts';
import linkedChannelsRoute, { channelManagementRoutes } from './channels.ts';
import { loadConsoleAssets } from './console/assets.ts';
import consoleRoutes from './console/pages.ts';
import apiReferenceRoutes from './docs.ts';
import healthRoute from './healthz.ts';
import acceptInvitationRoute from './invitations/accept.ts';
import invitationPreviewRoute from './invitations/preview.ts';
import invitationRoutes from './invitations.ts';
import metricsRoute from './metrics.ts';
import type { OffsiteRouteDeps } from './offsite/support/deps.ts';
import offsiteTestRoute from './offsite/test.ts';
import offsiteRoutes from './offsite.ts';
import openapi from './openapi.ts';
import policyRoutes from './policies.ts';
import approvalRoute from './proposals/approvals.ts';
import type { ApprovalRouteDeps } from './proposals/support/views.ts';
import proposalRoutes from './proposals.ts';
import readinessRoute from './readyz.ts';
import { BodyIdleGuard } from './server/body-idle-guard.ts';
import bodyMembers from './server/body-members.ts';
import { clientErrorAnswers } from './server/client-errors.ts';
import { buildSharedSerializer } from './server/compiled-schemas.ts';
import errorHandler, { sendRouterProblem } from './server/error-handler.ts';
import httpFraming from './server/http-framing.ts';
import jsonBody from './server/json-body.ts';
import { lazyRequestLogger } from './server/lazy-request-logger.ts';
import queryParameters from './server/query-parameters.ts';
import { refusalRecorder } from './server/refusal-audit.ts';
import { RequestLog } from './server/request-log.ts';
import requestValidation from './server/request-validation.ts';
import responseHeaders, { baseHeaders } from './server/response-headers.ts';
import usageRoutes from './usage.ts';
import retryDeliveryRoute from './webhooks/deliveries/retry.ts';
import deliveriesRoute from './webhooks/deliveries.ts';
import rotateSecretRoute from './webhooks/rotate-secret.ts';
import type { WebhookRouteDeps } from './webhooks/support/deps.ts';
import webhookTestRoute from './webhooks/test.ts';
import webhookRoutes from './webhooks.ts';

export interface AppDeps {
  config: Config;
  authenticator: WalletAuthenticator;
  failures: FailureLimiter;
  metrics: Metrics;
  logger: Logger;
  files: FilesRouteDeps;
  /** Tenant self-service: admins, wallets, invitations, channel management, the tenant's audit log. */
  administration: AdministrationRouteDeps;
  /** Policies and proposals (docs/approvals.md). */
  approvals: ApprovalRouteDeps;
  /** Webhooks and their delivery logs (docs/events.md). */
  webhooks: WebhookRouteDeps;
  offsite: OffsiteRouteDeps;
  readiness: Readiness;
  /** The built console (index.html, assets/); dist/console unless given (tests: one never built). */
  consoleDir?: string;
}

const MAX_ENCODED_SEGMENT = 255 * 3;

/**
 * Builds the HTTP application without listening; production and tests use this same function.
 *
 * Where a URL is served, from the URL alone: drop `/api` and the parameters; the segments left
 * are folders under src/http, the last one (without an extension) the file. So
 * /api/channels/{channelRef}/folders/{folderName}/files/{filename}/restore is served by
 * channels/folders/files/restore.ts, /api/channels/{channelRef}/audit by channels/audit.ts and
 * /healthz by healthz.ts; a collection's items are served with it (…/files/{filename}: files.ts).
 * What serves no URL sits where no URL leads: server/ (plumbing), schemas/ (the document's
 * shapes), support/ folders, api-reference/ (Swagger UI's files, the document's per-operation
 * examples). /metrics follows the rule too (metrics.ts) though the document does not list it; the
 * console's pages (/, /console/…) are console/pages.ts, beside the built files they serve
 * (console/assets.ts).
 * test/http/url-to-file.unit.test.ts holds every path of the OpenAPI document to this rule.
 */
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
    schemaController: { compilersFactory: { buildSerializer: buildSharedSerializer } },
  });

  app.server.maxConnections = config.limits.maxConnections;
  app.server.on('checkExpectation', answerUnmetExpectation);
  app.server.on('connect', answerConnect);
  app.server.on('request', new BodyIdleGuard(config.limits.bodyIdleSeconds * 1000, answerStalledBody).watch);
  await app.register(errorHandler, {
    onError: (error) => deps.metrics.error(error.code, error.status),
    recordRefusal: refusalRecorder(deps.administration.entries),
  });
  // Before any route: its onRoute hook gives every route the refusal of unknown query parameters.
  await app.register(queryParameters);
  // Likewise, before any route: an unknown member of a JSON body is refused, never dropped, and a
  // body is checked as declared, never coerced.
  await app.register(bodyMembers);
  await app.register(requestValidation);
  // Registered early so that its onResponse hook sees every route.
  await app.register(fp(metricsRoute), { metrics: deps.metrics, token: config.metricsToken });
  await app.register(responseHeaders, { corsOrigins: config.corsOrigins, corsExtras: config.corsExtras });
  await app.register(httpFraming);
  await app.register(jsonBody);
  await app.register(openapi, { publicBaseUrl: config.publicBaseUrl, version: SERVICE_VERSION });
  await app.register(walletAuth, { authenticator, failures: deps.failures });

  await app.register(healthRoute);
  await app.register(readinessRoute, { readiness: deps.readiness });
  await app.register(consoleRoutes, { assets: await loadConsoleAssets(deps.consoleDir) });
  await app.register(apiReferenceRoutes);
  await app.register(authTestRoute, { authenticator });
  await app.register(nonceRoute, { authenticator });
  await app.register(logoutRoute, { authenticator, admins: deps.administration.admins });
  await app.register(linkedChannelsRoute, deps.files);
  await app.register(channelManagementRoutes, deps.administration);
  await app.register(adminRoutes, deps.administration);
  await app.register(walletRoutes, deps.administration);
  await app.register(walletChallengeRoute, deps.administration);
  await app.register(invitationRoutes, deps.administration);
  await app.register(invitationPreviewRoute, { ...deps.administration, failures: deps.failures });
  await app.register(acceptInvitationRoute, { ...deps.administration, failures: deps.failures });
  await app.register(channelAdminRoutes, deps.administration);
  await app.register(tenantAuditRoute, deps.administration);
  await app.register(auditExportRoute, deps.administration);
  await app.register(auditHeadRoute, deps.administration);
  await app.register(policyRoutes, deps.approvals);
  await app.register(proposalRoutes, deps.approvals);
  await app.register(approvalRoute, deps.approvals);
  await app.register(webhookRoutes, deps.webhooks);
  await app.register(webhookTestRoute, deps.webhooks);
  await app.register(rotateSecretRoute, deps.webhooks);
  await app.register(deliveriesRoute, deps.webhooks);
  await app.register(retryDeliveryRoute, deps.webhooks);
  await app.register(offsiteRoutes, deps.offsite);
  await app.register(usageRoutes, deps.administration);
  await app.register(channelQuotaRoutes, deps.administration);
  await app.register(channelUsageRoute, deps.administration);
  await app.register(offsiteTestRoute, deps.offsite);
  await app.register(uploadDiscoveryRoute, { maxFileBytes: config.files.maxFileBytes });
  // Every route on a channel, in one scope: each enters its channel (signed link or sign-in, body,
  // channel, permission, named file) through the preHandler it declares with app.enterChannel
  // (channels/support/channel-scope.ts), which refuses at start-up a route here without one.
  // Registered in the order the OpenAPI document has always listed them.
  await app.register(async function channelRoutesScope(scope) {
    await scope.register(channelScope, { access: deps.files.access, linkSigner: deps.files.linkSigner });
    // Own encapsulation context: it replaces the body parsers to stream uploads.
    await scope.register(fileRoutes, deps.files);
    await scope.register(fileVersionsRoute, deps.files);
    await scope.register(fileRestoreRoute, deps.files);
    await scope.register(folderRestoreRoute, deps.files);
    await scope.register(channelRestoreRoute, deps.files);
    await scope.register(foldersRoute, deps.files);
    await scope.register(backupsRoutes, deps.files);
    await scope.register(backupLockRoutes, deps.files);
    await scope.register(auditRoute, deps.files);
    await scope.register(deletedFilesRoute, deps.files);
    await scope.register(changesRoute, deps.files);
    await scope.register(folderArchiveRoute, deps.files);
    await scope.register(channelArchiveRoute, deps.files);
    // Own encapsulation context: streamed bodies, and Tus-Resumable on every answer.
    await scope.register(uploadRoutes, deps.files);
    await scope.register(channelPolicyRoutes, deps.approvals);
  });
  return app;
}
