/**
 * Every setting the service reads, with its default as people read it and what it means in one
 * line: what `wallet-admin serve --help` prints. config.ts reads them; a test keeps this list, the
 * names config.ts reads and README's configuration table in agreement, so none can drift alone.
 */
export interface SettingInfo {
  name: string;
  /** The default as written in README's table ("unset" when absent means off). */
  fallback: string;
  meaning: string;
}

export const SETTINGS: readonly SettingInfo[] = [
  { name: 'HOST', fallback: '127.0.0.1', meaning: 'the address the service listens on' },
  { name: 'PORT', fallback: '8080', meaning: 'the port the service listens on' },
  { name: 'DATA_DIR', fallback: './data', meaning: 'embedded metadata (metadata.sqlite) and file storage (storage/)' },
  {
    name: 'PUBLIC_BASE_URL',
    fallback: 'http://HOST:PORT',
    meaning: "the service's public address, for absolute URLs and the default auth domain",
  },
  { name: 'DATABASE_URL', fallback: 'unset', meaning: 'postgres://… to keep metadata in PostgreSQL (12 or later) instead of SQLite' },
  { name: 'LOG_LEVEL', fallback: 'info', meaning: 'fatal, error, warn, info, debug, trace or silent; JSON lines on standard output' },
  { name: 'NODE_ENV', fallback: 'unset', meaning: 'production: no demo data on a first start' },
  { name: 'REQUEST_TIMEOUT', fallback: '30', meaning: 'seconds the request line and headers may take to arrive' },
  { name: 'BODY_IDLE_TIMEOUT', fallback: '30', meaning: 'seconds a request body may stop arriving' },
  { name: 'MAX_HEADER_BYTES', fallback: '16384', meaning: 'request line and headers together; beyond it 431' },
  { name: 'MAX_JSON_BYTES', fallback: '1048576', meaning: 'JSON request bodies; beyond it 413' },
  { name: 'KEEP_ALIVE_TIMEOUT', fallback: '72', meaning: 'seconds an idle kept-alive connection stays open' },
  { name: 'MAX_CONNECTIONS', fallback: '10000', meaning: 'open connections at once; beyond it new ones are closed' },
  {
    name: 'SHUTDOWN_TIMEOUT',
    fallback: '10',
    meaning: 'seconds a SIGTERM or SIGINT lets requests in flight finish; then they are cut and the service exits',
  },
  {
    name: 'CORS_ORIGINS',
    fallback: 'none',
    meaning: 'origins allowed to call from a browser (https://app.example.com, https://*.example.com)',
  },
  {
    name: 'CORS_EXTRA_ALLOW_HEADERS',
    fallback: 'none',
    meaning: "request headers a page of another origin may send besides the contract's, e.g. If-Match,If-None-Match",
  },
  {
    name: 'CORS_EXTRA_EXPOSE_HEADERS',
    fallback: 'none',
    meaning: "response headers a page of another origin may read besides the contract's, e.g. ETag,X-Kept-Version-Id",
  },
  {
    name: 'AUTH_DOMAINS',
    fallback: 'host of PUBLIC_BASE_URL; on a loopback HOST without it, also 127.0.0.1:PORT and localhost:PORT',
    meaning: 'domains a SIWE message may sign in to, each host[:port], optionally with its scheme',
  },
  { name: 'AUTH_CHAIN_IDS', fallback: 'any', meaning: 'chain ids a SIWE message may name (its Chain ID), e.g. 1,8453' },
  { name: 'AUTH_CLOCK_SKEW', fallback: '30', meaning: 'seconds of slack on issued-at, expiration and not-before' },
  { name: 'AUTH_MAX_AGE', fallback: '86400', meaning: 'the longest (seconds) a signed message authenticates, counted from its Issued At' },
  { name: 'AUTH_PLAIN_MESSAGES', fallback: 'off', meaning: 'messages other than SIWE: off, timestamped or any' },
  { name: 'AUTH_REQUIRE_SERVER_NONCE', fallback: 'false', meaning: 'SIWE nonces must come from GET /api/auth/nonce' },
  { name: 'AUTH_NONCE_TTL', fallback: '600', meaning: 'seconds an issued nonce may wait for its message' },
  { name: 'AUTH_CACHE_SIZE', fallback: '10000', meaning: 'verified signatures (and principal lookups) kept in memory' },
  { name: 'AUTH_STATE_REFRESH', fallback: '2', meaning: 'seconds (at most 5) a cached admin record or revocation may be stale' },
  { name: 'AUTH_FAIL_LIMIT', fallback: '100', meaning: 'failed sign-ins a client address may make per minute; then 429' },
  {
    name: 'AUTH_RECOVERY_THREADS',
    fallback: 'one per core beyond the first, at most 4',
    meaning: 'worker threads that check new sign-ins off the event loop; 0: on it',
  },
  { name: 'AUTH_FAIL_IPV6_PREFIX', fallback: '64', meaning: "prefix length (1-128) under which an IPv6 client's failures count together" },
  { name: 'TRUST_PROXY', fallback: 'none', meaning: 'proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client' },
  { name: 'METRICS_TOKEN', fallback: 'unset', meaning: 'when set, GET /metrics needs Authorization: Bearer <token>' },
  { name: 'REDIS_URL', fallback: 'unset', meaning: 'redis://… to share the failure counts between instances' },
  { name: 'AUTH_RPC_URL', fallback: 'unset', meaning: 'JSON-RPC nodes for contract wallets, one per chain: 1=https://…,8453=https://…' },
  { name: 'AUTH_RPC_TIMEOUT', fallback: '5', meaning: 'seconds one RPC call may take, its wait for a turn included' },
  { name: 'AUTH_RPC_CONCURRENCY', fallback: '8', meaning: 'RPC calls in flight at once, all chains together' },
  { name: 'STORAGE', fallback: 'disk', meaning: 'where file bytes live: disk (DATA_DIR/storage) or s3' },
  { name: 'S3_ENDPOINT', fallback: 'unset', meaning: 'the S3 endpoint for STORAGE=s3 (unset: AWS)' },
  { name: 'S3_BUCKET', fallback: 'unset', meaning: 'the bucket for STORAGE=s3 (credentials from the standard AWS_* variables)' },
  { name: 'S3_REGION', fallback: 'us-east-1', meaning: "the bucket's region" },
  { name: 'S3_FORCE_PATH_STYLE', fallback: 'false', meaning: 'path-style bucket URLs (MinIO and other S3-compatible stores)' },
  {
    name: 'S3_TIMEOUT',
    fallback: '60',
    meaning: 'seconds (at least BODY_IDLE_TIMEOUT) a request to the store may wait to connect or go without a byte; then 503',
  },
  { name: 'S3_PUBLIC_BASE_URL', fallback: 'unset', meaning: "with STORAGE=s3: where the bucket's objects can be read without credentials" },
  { name: 'MAX_FILE_BYTES', fallback: '1073741824', meaning: 'largest upload; larger bodies get 413 and change nothing' },
  { name: 'FILE_URL_SIGNING', fallback: 'false', meaning: 'true: restores answer a link that downloads without wallet headers' },
  {
    name: 'FILE_URL_SECRET',
    fallback: 'unset',
    meaning: 'HMAC-SHA256 key of signed links, at least 32 characters, the same on every instance',
  },
  { name: 'FILE_URL_TTL', fallback: '3600', meaning: 'seconds a signed link lives' },
  { name: 'BACKUP_INTERVAL', fallback: '0', meaning: 'seconds between scheduled backups of every changed channel; 0: none' },
  { name: 'BACKUP_KEEP_LAST', fallback: '30', meaning: 'backups of a channel always kept (newest first)' },
  { name: 'BACKUP_KEEP_DAYS', fallback: '30', meaning: 'backups younger than this many days are kept too' },
  { name: 'VERSION_KEEP_DAYS', fallback: '30', meaning: 'days replaced and deleted versions are kept; the newest of a file always is' },
];
