import type { FastifyInstance } from 'fastify';
import { administrationServices } from '../administration/administration-services.ts';
import { approvalServices } from '../approvals/approval-services.ts';
import { RunTakeovers } from '../approvals/proposal-runs.ts';
import type { ContractWalletVerifier } from '../auth/contract-wallet-verifier.ts';
import { ChainCheckAllowance } from '../auth/limits/chain-check-allowance.ts';
import type { FailureLimiter } from '../auth/limits/failure-limiter.ts';
import { MemoryFailureLimiter } from '../auth/limits/memory-failure-limiter.ts';
import { failureKeyOf, keyedByNetwork } from '../auth/limits/network-key.ts';
import { checkMessage } from '../auth/message-check.ts';
import { createAddressRecoverer } from '../auth/signature/address-recoverer.ts';
import { VerificationPool } from '../auth/verification-pool.ts';
import { WalletAuthenticator } from '../auth/wallet-authenticator.ts';
import { openUploadStaging } from '../blobs/staging/open-upload-staging.ts';
import type { Config, RpcConfig } from '../config/config.ts';
import { DEMO_WALLET, demoOwnerRefusedNotice, demoRefusal, PUBLISHED_WALLET_REFUSAL } from '../demo/demo-seed.ts';
import { type Events, startEvents } from '../events/events-service.ts';
import { ArchiveService } from '../files/archive/archive-service.ts';
import { BackupScheduler } from '../files/backup-scheduler.ts';
import { type FileServices, openFileServices } from '../files/file-services.ts';
import { readHoldGuard } from '../files/read-hold-guard.ts';
import { ResumableUploads } from '../files/uploads/resumable-uploads.ts';
import { administrationRouteDeps } from '../http/admins/support/deps.ts';
import { buildApp } from '../http/app.ts';
import { filesRouteDeps } from '../http/channels/support/deps.ts';
import type { Logger } from '../logging/logger.ts';
import { openMetadataStore } from '../metadata/open-metadata-store.ts';
import type { MetadataStore } from '../model/metadata-store.ts';
import { Metrics } from '../observability/metrics.ts';
import { Readiness } from '../observability/readiness.ts';
import { type Offsite, startOffsite } from '../offsite/offsite-service.ts';
import { reservedBuckets, TenantOffsiteService } from '../offsite/tenant/tenant-offsite-service.ts';
import { TenantShipper } from '../offsite/tenant/tenant-shipper.ts';
import { tenantTargetOpener } from '../offsite/tenant/tenant-targets.ts';
import { openSecretBox } from '../secrets/open-secret-box.ts';
import { WebhookService } from '../webhooks/webhook-service.ts';
import { assertDataDirWritable } from './writable-data-dir.ts';

export interface Service {
  app: FastifyInstance;
  store: MetadataStore;
  authenticator: WalletAuthenticator;
  /** The file, backup and restore services the routes use (the demo seeds its files through them). */
  files: FileServices;
  /** Off-site copies: the shipper, when OFFSITE_URL is set. */
  offsite: Offsite;
  /** Events out: the dispatcher delivering the chains to webhooks and brokers (docs/events.md). */
  events: Events;
  /** Resumable (tus) uploads (docs/uploads.md): the routes', and what reclaims expired ones. */
  uploads: ResumableUploads;
  /**
   * Stops accepting connections, lets the requests in flight finish for at most `deadlineMs`, then
   * cuts the connections still open (an upload cut midway stores nothing), and closes the stores.
   */
  close(deadlineMs?: number): Promise<void>;
}

const PURGE_INTERVAL_MS = 60_000;

export interface ServiceOptions {
  /** Where the built console is (buildApp's `consoleDir`): dist/console unless given. */
  consoleDir?: string;
  /**
   * The sign-ins' clock (message times, and how long cached admin records and revocations are
   * trusted): Date.now unless given. Tests move it to show a bound that waiting could only suggest.
   */
  now?: () => number;
}

/** Wires store, authentication and HTTP together; the one composition root of the server. */
export async function createService(config: Config, logger: Logger, options: ServiceOptions = {}): Promise<Service> {
  await assertDataDirWritable(config);
  const store = await openMetadataStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  const recoverer = createAddressRecoverer({ onFallback: (reason) => logger.warn({}, reason) });
  if (config.auth.plainMessages === 'any') {
    logger.warn({}, 'AUTH_PLAIN_MESSAGES=any: any signed message authenticates forever, like a static password; use SIWE messages');
  }
  const metrics = new Metrics();
  const contractWallets = config.auth.rpc.nodes.length > 0 ? await openContractWalletVerifier(config.auth.rpc, metrics) : undefined;
  // Off the event loop only with the native recovery (a worker with the JavaScript fallback would
  // spend more than it saves).
  const checker =
    config.auth.recoveryThreads > 0 && recoverer.implementation === 'native'
      ? new VerificationPool(
          config.auth.recoveryThreads,
          config.auth,
          (input) => checkMessage(input, config.auth, recoverer),
          (err) => logger.error({ err }, 'a sign-in verification worker failed; it is replaced'),
        )
      : undefined;
  // Counted per IPv4 address and per IPv6 network (AUTH_FAIL_IPV6_PREFIX), in Redis or in this process.
  const failures = keyedByNetwork(
    config.redisUrl
      ? await openRedisFailureLimiter(config.redisUrl, config.auth.failLimit, logger)
      : new MemoryFailureLimiter(config.auth.failLimit),
    config.auth.failIpv6Prefix,
  );
  const authenticator = new WalletAuthenticator({
    config: config.auth,
    store,
    recoverer,
    checker,
    contractWallets,
    chainChecks: contractWallets && new ChainCheckAllowance(failures, (client) => failureKeyOf(client, config.auth.failIpv6Prefix)),
    refusedWallets: await refusedWallets(config, store, logger),
    now: options.now,
  });
  metrics.cache('signature_cache', 'Signature-cache', authenticator.signatures);
  if (contractWallets) metrics.cache('rpc_code_cache', 'eth_getCode cache (contract-wallet checks)', contractWallets.codeCache);
  const fileServices = await openFileServices(config, store.files, logger, {
    recover: true,
    observe: (action, result, seconds, bytes) => metrics.fileOperation(action, result, seconds, bytes),
    blobReleaseGuard: readHoldGuard(store.readHolds, store.offsite, config.offsite ? store.offsite : undefined),
    reservations: (channelId, tenantId, exceptUploadId) => store.uploads.reservedUsage(channelId, tenantId, Date.now(), exceptUploadId),
  });
  const uploads = new ResumableUploads({
    records: store.uploads,
    staging: await openUploadStaging(config, fileServices.blobs),
    files: fileServices.files,
    locks: fileServices.locks,
    catalog: store.files,
    maxFileBytes: config.files.maxFileBytes,
    expirySeconds: config.files.uploadExpirySeconds,
    maxPerAdmin: config.files.uploadsMaxPerAdmin,
  });
  const administration = administrationServices({ config, store, logger, signIns: authenticator, recoverer, contractWallets });
  const box = openSecretBox({ secretsKey: config.secretsKey, dataDir: config.dataDir, embedded: config.databaseUrl === undefined });
  const webhooks = new WebhookService({
    store,
    audit: administration.entries,
    box,
    allow: config.events.outboundAllow,
    settings: config.events.delivery,
  });
  // Tenants' own off-site copies: shipped apart from the operator's, each tenant in a slot of its own.
  const openTenantTarget =
    box && tenantTargetOpener({ box, allow: config.events.outboundAllow, timeoutSeconds: config.tenantOffsite.timeoutSeconds });
  const tenantShipper =
    openTenantTarget &&
    new TenantShipper({ store, blobs: fileServices.blobs, openTarget: openTenantTarget, settings: config.tenantOffsite, logger });
  const tenantOffsite = new TenantOffsiteService({
    store,
    audit: administration.entries,
    box,
    allow: config.events.outboundAllow,
    reserved: reservedBuckets(config),
    openTarget: openTenantTarget,
    shipper: tenantShipper,
  });
  const approvals = approvalServices({
    webhooks,
    offsite: tenantOffsite,
    config,
    store,
    audit: administration.entries,
    administration,
    scopeRestores: fileServices.scopeRestores,
    backupLocks: fileServices.backupLocks,
    recoverer,
    contractWallets,
    now: options.now,
  });
  const app = await buildApp({
    config,
    authenticator,
    failures,
    metrics,
    logger,
    files: filesRouteDeps(
      fileServices,
      approvals,
      store,
      new ArchiveService({
        catalog: store.files,
        blobs: fileServices.blobs,
        audit: fileServices.audit,
        holds: store.readHolds,
        maxPerAdmin: config.files.archiveMaxPerAdmin,
      }),
      uploads,
    ),
    administration: administrationRouteDeps(administration, approvals, store, authenticator, config.publicBaseUrl),
    approvals,
    webhooks: { webhooks, held: approvals.webhooks, proposals: approvals.proposals },
    offsite: { offsite: tenantOffsite, held: approvals.offsite, proposals: approvals.proposals },
    readiness: new Readiness(store, fileServices.blobs),
    consoleDir: options.consoleDir,
  });

  const scheduler = new BackupScheduler({
    store,
    catalog: store.files,
    backups: fileServices.backups,
    retention: fileServices.retention,
    settleJournal: fileServices.settleJournal,
    catchUpPublicCopies: fileServices.catchUpPublicCopies,
    intervalSeconds: config.files.backupIntervalSeconds,
    logger,
  });
  scheduler.start();
  // A held operation whose run an instance left behind (it died mid-run) is taken over here.
  const takeovers = new RunTakeovers(store, approvals.proposals, config.proposalRunLeaseSeconds * 1000, logger, options.now);
  takeovers.start();

  const offsite = await startOffsite({ config: config.offsite, store, blobs: fileServices.blobs, logger, metrics });
  tenantShipper?.start();
  metrics.gauge(
    'offsite_tenant_targets',
    'Tenants with an off-site target of their own',
    async () => (await store.tenantOffsite.census()).targets,
  );
  metrics.gauge(
    'offsite_tenant_targets_failing',
    "Tenants' own off-site targets whose last round failed (GET /api/offsite names the error to the tenant)",
    async () => (await store.tenantOffsite.census()).failing,
  );
  metrics.gauge(
    'uploads_unfinished',
    'Resumable uploads begun and not yet completed, terminated or expired, on every instance',
    async () => (await store.uploads.census(Date.now())).unfinished,
  );
  metrics.gauge(
    'uploads_unfinished_bytes',
    'The bytes unfinished resumable uploads hold so far (DATA_DIR/uploads or uploads/ in the bucket)',
    async () => (await store.uploads.census(Date.now())).bytes,
  );
  const events = startEvents({ config: config.events, records: store.events, webhooks: () => webhooks.destinations(), logger, metrics });

  const purge = setInterval(() => {
    store.purgeExpired(Date.now()).catch((err: unknown) => logger.warn({ err }, 'purging expired nonces and revocations failed'));
  }, PURGE_INTERVAL_MS);
  purge.unref();
  // Expired uploads' bytes are reclaimed within a few minutes (sooner with a short UPLOAD_EXPIRY).
  const reclaim = setInterval(() => {
    uploads.expire().catch((err: unknown) => logger.warn({ err }, 'reclaiming expired uploads failed'));
  }, Math.min(config.files.uploadExpirySeconds, 300) * 1000);
  reclaim.unref();

  return {
    app,
    store,
    authenticator,
    files: fileServices,
    offsite,
    events,
    uploads,
    async close(deadlineMs = Number.POSITIVE_INFINITY) {
      clearInterval(purge);
      clearInterval(reclaim);
      const cut = Number.isFinite(deadlineMs)
        ? setTimeout(() => {
            logger.warn({ deadlineMs }, 'requests still in flight at the shutdown deadline: their connections are cut');
            app.server.closeAllConnections();
          }, deadlineMs)
        : undefined;
      try {
        await app.close();
      } finally {
        clearTimeout(cut);
      }
      await checker?.close();
      await scheduler.stop();
      await takeovers.stop();
      await events.close();
      await tenantShipper?.stop();
      await offsite.close();
      await uploads.close();
      await fileServices.close();
      await failures.close();
      await store.close();
    },
  };
}

/**
 * The published development wallet may sign in only where the demo data may be created (see
 * demoRefusal): anyone holds its key. A demo owner made by an earlier start on loopback would
 * otherwise stay an open door once the service is published; the start-up log says so, and how to close it.
 */
async function refusedWallets(config: Config, store: MetadataStore, logger: Logger): Promise<ReadonlyMap<string, string> | undefined> {
  const reason = demoRefusal(config);
  if (reason === undefined) return undefined;
  const demoOwner = await store.findAdminByWallet(DEMO_WALLET);
  if (demoOwner !== undefined) logger.warn({ reason, adminId: demoOwner.id }, demoOwnerRefusedNotice(reason, demoOwner.id));
  return new Map([[DEMO_WALLET.toLowerCase(), PUBLISHED_WALLET_REFUSAL]]);
}

// viem and ioredis take 0.3–0.4 s to load together: only deployments that use them (AUTH_RPC_URL,
// REDIS_URL) pay for it, at start-up, never on a request.

async function openContractWalletVerifier(rpc: RpcConfig, metrics: Metrics): Promise<ContractWalletVerifier> {
  const { createContractWalletVerifier } = await import('../auth/contract-wallet-verifier.ts');
  return createContractWalletVerifier(rpc, (chain, method, result, seconds) => metrics.rpcCall(chain, method, result, seconds));
}

async function openRedisFailureLimiter(url: string, limit: number, logger: Logger): Promise<FailureLimiter> {
  const { RedisFailureLimiter } = await import('../auth/limits/redis-failure-limiter.ts');
  return RedisFailureLimiter.open(url, limit, logger);
}
