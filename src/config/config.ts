import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { type RpcNode, readChainIds, readRpcNodes } from './chain-settings.ts';
import { type Env, EnvReader } from './env-readers.ts';
import { type EventsConfig, readEventsConfig } from './events-config.ts';
import { type OffsiteConfig, readOffsiteConfig } from './offsite-config.ts';
import { redactUrl, shownValue } from './redaction.ts';
import { parseSecretsKey } from './secrets-key.ts';
import { readTenantOffsiteConfig, type TenantOffsiteConfig } from './tenant-offsite-config.ts';

export type PlainMessagePolicy = 'off' | 'timestamped' | 'any';
export const PLAIN_MESSAGE_POLICIES: readonly PlainMessagePolicy[] = ['off', 'timestamped', 'any'];
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface AuthConfig {
  /** Hosts (with port when not default) a SIWE message may name as its domain. */
  domains: string[];
  /**
   * Per domain of `domains`, the schemes a SIWE message naming it may carry (EIP-4361 makes the
   * scheme optional; a message without one is not asked): the scheme its AUTH_DOMAINS entry gives
   * (`https://admin.example.com`), else that of PUBLIC_BASE_URL, the service's origin.
   */
  domainSchemes: ReadonlyMap<string, readonly string[]>;
  clockSkewSeconds: number;
  maxAgeSeconds: number;
  plainMessages: PlainMessagePolicy;
  requireServerNonce: boolean;
  nonceTtlSeconds: number;
  signatureCacheSize: number;
  /** How stale a cached principal or revocation answer may be; bounds propagation of changes. */
  stateRefreshSeconds: number;
  /** Chain ids a SIWE message may name (AUTH_CHAIN_IDS); undefined accepts any. */
  chainIds: number[] | undefined;
  rpc: RpcConfig;
  /** Failed authentications a client address may make per minute before 429 (AUTH_FAIL_LIMIT). */
  failLimit: number;
  /** An IPv6 client's failures count for its network of this many bits (AUTH_FAIL_IPV6_PREFIX; 128 = per address). */
  failIpv6Prefix: number;
  /** Worker threads that recover signers off the event loop (AUTH_RECOVERY_THREADS; 0: on the event loop). */
  recoveryThreads: number;
}

/** Where and how contract-wallet signatures are checked on chain; no node, no contract wallets. */
export interface RpcConfig {
  nodes: RpcNode[];
  /** The longest one RPC call may take, its wait for a turn included (AUTH_RPC_TIMEOUT). */
  timeoutSeconds: number;
  /** RPC calls in flight at once, all chains together (AUTH_RPC_CONCURRENCY). */
  concurrency: number;
}

export interface FilesConfig {
  maxFileBytes: number;
  /** Restores answer a signed download link instead of the plain file URL. */
  urlSigning: boolean;
  urlSecret: string | undefined;
  urlTtlSeconds: number;
  backupIntervalSeconds: number;
  backupKeepLast: number;
  backupKeepDays: number;
  versionKeepDays: number;
  /** The furthest ahead a backup lock may end, in days (BACKUP_LOCK_MAX_DAYS). */
  backupLockMaxDays: number;
  /** Archives (ZIP downloads) one admin may have streaming at once, on all instances (ARCHIVE_MAX_PER_ADMIN). */
  archiveMaxPerAdmin: number;
  /** How long an unfinished resumable upload lives past its last PATCH (UPLOAD_EXPIRY). */
  uploadExpirySeconds: number;
  /** Unfinished resumable uploads one admin may have (UPLOADS_MAX_PER_ADMIN). */
  uploadsMaxPerAdmin: number;
}

export type StorageKind = 'disk' | 's3';
export const STORAGE_KINDS: readonly StorageKind[] = ['disk', 's3'];

/** Where file bytes live: `DATA_DIR/storage` on disk, or a bucket of any S3-compatible store. */
export interface StorageConfig {
  kind: StorageKind;
  s3:
    | {
        endpoint: string | undefined;
        bucket: string;
        region: string;
        forcePathStyle: boolean;
        /** Where the bucket's objects are readable without credentials (a CDN, a public bucket). */
        publicBaseUrl: string | undefined;
        /**
         * The longest one request to the store may wait to connect, or go without a byte either way:
         * then it fails (503), and the file's lock is let go, instead of waiting on a half-open
         * connection until the operating system gives up (minutes to hours).
         */
        timeoutSeconds: number;
      }
    | undefined;
}

/**
 * What one client may take of the server (OWASP API4). Defaults sit far above normal use: a
 * sign-in's headers are about 1.5 KB, the API's JSON bodies a few hundred bytes.
 */
export interface HttpLimits {
  /** The request line and headers must arrive within this (slow clients hold a connection otherwise). */
  requestTimeoutSeconds: number;
  /**
   * The longest a request body may stop arriving; a body that keeps arriving has no deadline, so
   * that a large upload does not need a fast line. MAX_CONNECTIONS bounds how many may trickle.
   */
  bodyIdleSeconds: number;
  /** Request line plus headers; beyond it 431. */
  maxHeaderBytes: number;
  /** JSON bodies (file uploads have MAX_FILE_BYTES); beyond it 413. */
  maxJsonBytes: number;
  /** An idle kept-alive connection is closed after this. */
  keepAliveSeconds: number;
  /** Open connections at once; beyond it new ones are closed unanswered. */
  maxConnections: number;
}

/** Headers beyond the service contract's CORS lists, appended to them (http/server/cors-headers.ts). */
export interface CorsExtras {
  /** CORS_EXTRA_ALLOW_HEADERS: request headers a cross-origin page may send besides the contract's. */
  allowHeaders: readonly string[];
  /** CORS_EXTRA_EXPOSE_HEADERS: response headers a cross-origin page may read besides the contract's. */
  exposeHeaders: readonly string[];
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  publicBaseUrl: string;
  logLevel: (typeof LOG_LEVELS)[number];
  production: boolean;
  databaseUrl: string | undefined;
  corsOrigins: string[];
  /** Headers beyond the contract's that cross-origin pages may send and read (cors-headers.ts); none by default. */
  corsExtras: CorsExtras;
  limits: HttpLimits;
  auth: AuthConfig;
  files: FilesConfig;
  storage: StorageConfig;
  /** Proxies whose X-Forwarded-For is believed (addresses or CIDR ranges); none by default. */
  trustProxy: string[];
  /** Shares the failed-authentication counts between instances. */
  redisUrl: string | undefined;
  /** When set, GET /metrics needs Authorization: Bearer <token>. */
  metricsToken: string | undefined;
  /** The longest an invitation may stay open (INVITATION_MAX_SECONDS). */
  invitationMaxSeconds: number;
  /** How long a proposal waits for its approvals (PROPOSAL_SECONDS). */
  proposalSeconds: number;
  /** How long a held operation's run may go silent before another instance takes it over (PROPOSAL_RUN_LEASE_SECONDS). */
  proposalRunLeaseSeconds: number;
  /** The name the operator's local CLI acts under in the audit log (OPERATOR_LABEL). */
  operatorLabel: string;
  /** Encrypted off-site copies (OFFSITE_URL and the settings after it); undefined: none. */
  offsite: OffsiteConfig | undefined;
  /** Tenants' own off-site copies: how they are shipped (docs/offsite.md, "A tenant's own copy"). */
  tenantOffsite: TenantOffsiteConfig;
  /** Events out: the outbound-address guard, the brokers, and how deliveries are retried (docs/events.md). */
  events: EventsConfig;
  /** SECRETS_KEY: the key of every secret the service keeps (docs/events.md, "Secrets at rest"); undefined: unset. */
  secretsKey: Buffer | undefined;
  /**
   * How long a SIGTERM/SIGINT lets requests in flight finish before their connections are cut: an
   * upload whose client keeps sending would otherwise hold the shutdown as long as it likes.
   */
  shutdownTimeoutSeconds: number;
}

export class ConfigError extends Error {
  /** The message's lines, one a problem: the CLI prints each on a line of its own. */
  readonly lines: readonly string[];

  constructor(readonly problems: string[]) {
    const lines = ['Invalid configuration:', ...problems.map((problem) => `  - ${problem}`)];
    super(lines.join('\n'));
    this.name = 'ConfigError';
    this.lines = lines;
  }
}

/** The host a browser or wallet shows for a base URL: hostname, plus the port when it is not the default. */
export function authorityOf(url: URL): string {
  return url.host;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * The host of the base URL, and on a loopback HOST without PUBLIC_BASE_URL also `localhost:PORT`
 * and `127.0.0.1:PORT`: a browser on this machine may open either, and signs for the one it shows.
 * The base URL's own host comes first: the CLI and the start-up hint sign for domains[0].
 */
function defaultAuthDomains(publicBaseUrl: string, listenHost: string | undefined, port: number): string[] {
  const own = authorityOf(new URL(publicBaseUrl));
  if (listenHost === undefined || !LOOPBACK_HOSTS.has(listenHost.toLowerCase())) return [own];
  return [...new Set([own, `127.0.0.1:${port}`, `localhost:${port}`])];
}

const DOMAIN_WITH_SCHEME = /^([a-z][a-z0-9+.-]*):\/\/([^/?#@\s]+)\/?$/i;
const SIGN_IN_SCHEMES = ['http', 'https'];

/**
 * The sign-in domains and the schemes allowed for each: an AUTH_DOMAINS entry is a host[:port],
 * optionally with the scheme of its origin (`https://admin.example.com`); without one, the
 * service's own scheme applies.
 */
function signInDomains(
  entries: { domain: string; scheme?: string | undefined }[],
  serviceScheme: string,
): Pick<AuthConfig, 'domains' | 'domainSchemes'> {
  const domainSchemes = new Map<string, string[]>();
  for (const { domain, scheme } of entries) {
    const schemes = domainSchemes.get(domain) ?? [];
    const allowed = scheme ?? serviceScheme;
    if (!schemes.includes(allowed)) schemes.push(allowed);
    domainSchemes.set(domain, schemes);
  }
  return { domains: [...domainSchemes.keys()], domainSchemes };
}

/** One AUTH_DOMAINS entry, lowercase; a problem for a scheme other than http(s) or anything beyond host[:port]. */
function parseAuthDomain(entry: string, problems: string[]): { domain: string; scheme?: string } | undefined {
  const lower = entry.toLowerCase();
  const withScheme = DOMAIN_WITH_SCHEME.exec(lower);
  if (withScheme && SIGN_IN_SCHEMES.includes(withScheme[1]!)) return { domain: withScheme[2]!, scheme: withScheme[1]! };
  if (withScheme || /[/@\s]/.test(lower)) {
    problems.push(
      `AUTH_DOMAINS entry ${JSON.stringify(redactUrl(entry))} must be a host[:port], optionally with http:// or https:// (e.g. https://admin.example.com)`,
    );
    return undefined;
  }
  return { domain: lower };
}

/** An HTTP field name (RFC 9110 token); never `*`, which would mean any header were credentials not allowed. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function headerNames(read: EnvReader, name: string): string[] {
  const names = read.list(name) ?? [];
  for (const header of names) {
    if (header === '*' || !FIELD_NAME.test(header)) {
      read.problems.push(
        `${name} entry ${JSON.stringify(header.slice(0, 60))} must be a header name such as If-Match${header === '*' ? ' ("*" is not allowed: responses allow credentials)' : ''}`,
      );
    }
  }
  return names;
}

function validateCorsOrigin(origin: string): string | undefined {
  if (origin === '*') return 'CORS_ORIGINS cannot be "*" because responses allow credentials; list the origins';
  if (!/^https?:\/\/(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/.test(origin)) {
    return `CORS_ORIGINS entry ${JSON.stringify(redactUrl(origin))} must look like https://app.example.com or https://*.example.com`;
  }
  return undefined;
}

/**
 * On disk, signed links are the service's own (HMAC under FILE_URL_SECRET); on S3 they are
 * presigned GETs, signed with the AWS credentials, which SigV4 lets live at most 7 days.
 */
function checkUrlSigning({ files, storage }: Config, problems: string[]): void {
  const secretTooShort = files.urlSecret !== undefined && files.urlSecret.length < 32;
  if (files.urlSigning && storage.kind === 'disk' && (files.urlSecret === undefined || secretTooShort)) {
    problems.push('FILE_URL_SECRET must be set to at least 32 characters when FILE_URL_SIGNING=true (the same on every instance)');
  } else if (files.urlSigning && secretTooShort) {
    problems.push('FILE_URL_SECRET must be at least 32 characters');
  }
  if (files.urlSigning && storage.kind === 's3' && files.urlTtlSeconds > S3_PRESIGN_MAX_SECONDS) {
    problems.push(`FILE_URL_TTL must be at most ${S3_PRESIGN_MAX_SECONDS} seconds (7 days) with STORAGE=s3: presigned URLs live no longer`);
  }
}

const S3_PRESIGN_MAX_SECONDS = 7 * 86400;

/**
 * An upload streams the client's body to the store as it arrives: while the body pauses (for up
 * to BODY_IDLE_TIMEOUT), the store's connection is idle too, and must not be cut for it.
 */
function checkS3Timeout({ storage, limits }: Config, problems: string[]): void {
  if (storage.s3 && storage.s3.timeoutSeconds < limits.bodyIdleSeconds) {
    problems.push(
      `S3_TIMEOUT (${storage.s3.timeoutSeconds}) must be at least BODY_IDLE_TIMEOUT (${limits.bodyIdleSeconds}): an upload's connection to the store idles while its body pauses`,
    );
  }
}

/** Where the service listens without HOST and PORT (the CLI signs for it then too). */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8080;

/** Dot-separated labels of letters, digits, '-' and '_' (a container's name may hold one), a final dot allowed. */
const HOST_NAME = /^(?=.{1,254}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/**
 * HOST, what the service listens on and, without PUBLIC_BASE_URL, the host of its base URL: an IP
 * address (IPv6 without brackets; no zone, which a URL cannot hold) or a host name a URL can hold
 * (not 999.1.1.1, which a URL reads as an IPv4 address out of range).
 */
function readHost(read: EnvReader): string {
  const host = read.string('HOST', DEFAULT_HOST);
  const family = isIP(host);
  if (family !== 0 ? !host.includes('%') : HOST_NAME.test(host) && URL.canParse(`http://${host}/`)) return host;
  read.problems.push(
    `HOST must be an IP address or a host name without scheme, port or brackets, such as 0.0.0.0, ::, 127.0.0.1 or admin.internal (got ${shownValue('HOST', host)})`,
  );
  return DEFAULT_HOST;
}

/** Reads and validates every setting once; throws ConfigError naming each bad value. */
export function loadConfig(env: Env = process.env): Config {
  const read = new EnvReader(env);
  const host = readHost(read);
  const port = read.integer('PORT', DEFAULT_PORT, 0, 65535);
  const publicBase = read.url('PUBLIC_BASE_URL', ['http:', 'https:']);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const publicBaseUrl = (publicBase?.href ?? `http://${urlHost}:${port}`).replace(/\/+$/, '');
  const databaseUrl = read.url('DATABASE_URL', ['postgres:', 'postgresql:']);

  const corsOrigins = read.list('CORS_ORIGINS') ?? [];
  for (const origin of corsOrigins) {
    const problem = validateCorsOrigin(origin);
    if (problem) read.problems.push(problem);
  }
  const corsExtras: CorsExtras = {
    allowHeaders: headerNames(read, 'CORS_EXTRA_ALLOW_HEADERS'),
    exposeHeaders: headerNames(read, 'CORS_EXTRA_EXPOSE_HEADERS'),
  };
  const listedDomains = read.list('AUTH_DOMAINS')?.flatMap((entry) => parseAuthDomain(entry, read.problems) ?? []);
  const domainEntries =
    listedDomains ?? defaultAuthDomains(publicBaseUrl, publicBase === undefined ? host : undefined, port).map((domain) => ({ domain }));
  const serviceScheme = new URL(publicBaseUrl).protocol.slice(0, -1);

  const storageKind = read.oneOf('STORAGE', STORAGE_KINDS, 'disk');
  const s3Endpoint = read.url('S3_ENDPOINT', ['http:', 'https:']);
  const s3Bucket = read.raw('S3_BUCKET');
  if (storageKind === 's3' && !s3Bucket) read.problems.push('S3_BUCKET must name the bucket when STORAGE=s3');
  const s3PublicBase = read.url('S3_PUBLIC_BASE_URL', ['http:', 'https:']);
  if (storageKind !== 's3' && s3PublicBase) read.problems.push('S3_PUBLIC_BASE_URL applies only to STORAGE=s3');
  const storage: StorageConfig = {
    kind: storageKind,
    s3:
      storageKind === 's3'
        ? {
            endpoint: s3Endpoint?.href.replace(/\/+$/, ''),
            bucket: s3Bucket ?? '',
            region: read.string('S3_REGION', 'us-east-1'),
            forcePathStyle: read.boolean('S3_FORCE_PATH_STYLE', false),
            publicBaseUrl: s3PublicBase?.href.replace(/\/+$/, ''),
            timeoutSeconds: read.seconds('S3_TIMEOUT', 60, 1, 3600),
          }
        : undefined,
  };
  const config: Config = {
    host,
    port,
    dataDir: path.resolve(read.string('DATA_DIR', './data')),
    publicBaseUrl,
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    production: read.string('NODE_ENV', 'development') === 'production',
    databaseUrl: databaseUrl?.href,
    corsOrigins,
    corsExtras,
    shutdownTimeoutSeconds: read.seconds('SHUTDOWN_TIMEOUT', 10, 0, 3600),
    invitationMaxSeconds: read.seconds('INVITATION_MAX_SECONDS', 7 * 86400, 60, 365 * 86400),
    proposalSeconds: read.seconds('PROPOSAL_SECONDS', 3 * 86400, 60, 30 * 86400),
    proposalRunLeaseSeconds: read.seconds('PROPOSAL_RUN_LEASE_SECONDS', 60, 1, 3600),
    operatorLabel: readOperatorLabel(read),
    limits: {
      requestTimeoutSeconds: read.seconds('REQUEST_TIMEOUT', 30, 1, 3600),
      bodyIdleSeconds: read.seconds('BODY_IDLE_TIMEOUT', 30, 1, 3600),
      maxHeaderBytes: read.integer('MAX_HEADER_BYTES', 16 * 1024, 1024, 1024 * 1024),
      maxJsonBytes: read.integer('MAX_JSON_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
      keepAliveSeconds: read.seconds('KEEP_ALIVE_TIMEOUT', 72, 1, 3600),
      maxConnections: read.integer('MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    },
    auth: {
      ...signInDomains(domainEntries, serviceScheme),
      clockSkewSeconds: read.seconds('AUTH_CLOCK_SKEW', 30, 0, 3600),
      maxAgeSeconds: read.seconds('AUTH_MAX_AGE', 86400, 1),
      plainMessages: read.oneOf('AUTH_PLAIN_MESSAGES', PLAIN_MESSAGE_POLICIES, 'off'),
      requireServerNonce: read.boolean('AUTH_REQUIRE_SERVER_NONCE', false),
      nonceTtlSeconds: read.seconds('AUTH_NONCE_TTL', 600, 10),
      signatureCacheSize: read.integer('AUTH_CACHE_SIZE', 10000, 0, 10_000_000),
      stateRefreshSeconds: read.seconds('AUTH_STATE_REFRESH', 2, 0, 5),
      chainIds: readChainIds(read),
      rpc: {
        nodes: readRpcNodes(read),
        timeoutSeconds: read.seconds('AUTH_RPC_TIMEOUT', 5, 1, 60),
        concurrency: read.integer('AUTH_RPC_CONCURRENCY', 8, 1, 256),
      },
      failLimit: read.integer('AUTH_FAIL_LIMIT', 100, 1, 1_000_000),
      failIpv6Prefix: read.integer('AUTH_FAIL_IPV6_PREFIX', 64, 1, 128),
      // One core is the event loop's; the others may recover signatures, up to four.
      recoveryThreads: read.integer('AUTH_RECOVERY_THREADS', Math.min(4, Math.max(0, availableParallelism() - 1)), 0, 64),
    },
    files: {
      maxFileBytes: read.integer('MAX_FILE_BYTES', 1024 ** 3, 1, Number.MAX_SAFE_INTEGER),
      urlSigning: read.boolean('FILE_URL_SIGNING', false),
      urlSecret: read.raw('FILE_URL_SECRET'),
      urlTtlSeconds: read.seconds('FILE_URL_TTL', 3600, 1),
      archiveMaxPerAdmin: read.integer('ARCHIVE_MAX_PER_ADMIN', 2, 1, 1000),
      uploadExpirySeconds: read.seconds('UPLOAD_EXPIRY', 86_400, 1, 30 * 86_400),
      uploadsMaxPerAdmin: read.integer('UPLOADS_MAX_PER_ADMIN', 20, 1, 10_000),
      backupIntervalSeconds: read.seconds('BACKUP_INTERVAL', 0),
      backupKeepLast: read.integer('BACKUP_KEEP_LAST', 30, 1, 1_000_000),
      backupKeepDays: read.integer('BACKUP_KEEP_DAYS', 30, 0, 100_000),
      // At least a day (a lock shorter than that is no lock worth the name), at most 100 years.
      backupLockMaxDays: read.integer('BACKUP_LOCK_MAX_DAYS', 365, 1, 36_500),
      versionKeepDays: read.integer('VERSION_KEEP_DAYS', 30, 0, 100_000),
    },
    storage,
    offsite: undefined,
    tenantOffsite: readTenantOffsiteConfig(read),
    events: readEventsConfig(read),
    secretsKey: readSecretsKey(read),
    trustProxy: read.list('TRUST_PROXY') ?? [],
    redisUrl: read.url('REDIS_URL', ['redis:', 'rediss:'])?.href,
    metricsToken: read.raw('METRICS_TOKEN'),
  };
  config.offsite = readOffsiteConfig(read, {
    dataDir: config.dataDir,
    s3: storage.s3 ? { bucket: storage.s3.bucket, endpoint: storage.s3.endpoint } : undefined,
    accessKeyId: env.AWS_ACCESS_KEY_ID,
  });
  checkUrlSigning(config, read.problems);
  checkS3Timeout(config, read.problems);
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

function readSecretsKey(read: EnvReader): Buffer | undefined {
  const value = read.raw('SECRETS_KEY');
  if (value === undefined) return undefined;
  try {
    return parseSecretsKey(value);
  } catch (error) {
    read.problems.push((error as Error).message);
    return undefined;
  }
}

/** A label a person gives the operator, written into every audit chain its CLI appends to: plain, short, and nothing hidden. */
const OPERATOR_LABEL = /^[\p{L}\p{N}][\p{L}\p{N} ._:@-]{0,63}$/u;

function readOperatorLabel(read: EnvReader): string {
  const label = read.string('OPERATOR_LABEL', 'operator').normalize('NFC');
  if (OPERATOR_LABEL.test(label) && !label.endsWith(' ')) return label;
  read.problems.push(
    'OPERATOR_LABEL must be 1 to 64 letters, digits, spaces and . _ : @ -, starting with a letter or digit ' +
      `(got ${JSON.stringify(label.slice(0, 80))})`,
  );
  return 'operator';
}
