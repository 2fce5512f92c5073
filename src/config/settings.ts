/**
 * Every setting the service reads, with its default as people read it and what it means in one
 * line: what `wallet-admin serve --help` prints; `details` is the longer account that
 * docs/configuration.md is generated from (scripts/config-doc.ts). config.ts reads them; tests keep
 * this list, the names config.ts reads and docs/configuration.md in agreement, so none can drift alone.
 */
export interface SettingInfo {
  name: string;
  /** The default as written in docs/configuration.md ("unset" when absent means off). */
  fallback: string;
  /** One line, for `serve --help`. */
  meaning: string;
  /** Markdown for docs/configuration.md when one line does not say enough; links are relative to docs/. */
  details?: string;
}

export const SETTINGS: readonly SettingInfo[] = [
  {
    name: 'HOST',
    fallback: '127.0.0.1',
    meaning: 'the address the service listens on',
  },
  {
    name: 'PORT',
    fallback: '8080',
    meaning: 'the port the service listens on',
  },
  {
    name: 'DATA_DIR',
    fallback: './data',
    meaning: 'embedded metadata (metadata.sqlite) and file storage (storage/)',
    details:
      'embedded metadata (`metadata.sqlite`) and file storage (`storage/`), created if missing. `serve` checks at start-up, by writing a file and removing it, that it can write what it keeps there (the directory, `metadata.sqlite`, `locks/`, `storage/` and the folders directly under it); otherwise it stops with exit code 1 and names the path and the cause: `wallet-admin: DATA_DIR /srv/data is not writable (EACCES: permission denied): cannot write a file in /srv/data/storage. …`. There is no read-only mode',
  },
  {
    name: 'PUBLIC_BASE_URL',
    fallback: 'http://HOST:PORT',
    meaning: "the service's public address, for absolute URLs and the default auth domain",
    details: "the service's public address, for absolute URLs and the default auth domain",
  },
  {
    name: 'DATABASE_URL',
    fallback: 'unset',
    meaning: 'postgres://… to keep metadata in PostgreSQL (12 or later) instead of SQLite',
    details: '`postgres://…` to keep metadata in PostgreSQL (12 or later) instead of SQLite',
  },
  {
    name: 'LOG_LEVEL',
    fallback: 'info',
    meaning: 'fatal, error, warn, info, debug, trace or silent; JSON lines on standard output',
    details:
      '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; logs are JSON lines (pino) on standard output, one per answered request at `info` (its cost is a row of the [benchmarks](development.md#benchmarks)). Credentials never reach them: no `X-SIG` or `X-MES`, no link signature (a query parameter whose decoded name is `signature`, however it is spelt: `%73ignature=`…), no password or secret of a setting. Lines are written in batches (at once when 64 KiB are pending, else within 250 ms); when the reader of the output goes away (`npm start | head`) the lines are dropped and the service goes on',
  },
  {
    name: 'NODE_ENV',
    fallback: 'unset',
    meaning: 'production: no demo data on a first start',
    details:
      "`production` disables the demo data of the first start (so does a `HOST`, `PUBLIC_BASE_URL` or `AUTH_DOMAINS` entry that is not loopback, or any `TRUST_PROXY`), and with it the published development wallet's sign-ins (see the [first start](../README.md#the-first-start))",
  },
  {
    name: 'REQUEST_TIMEOUT',
    fallback: '30',
    meaning: 'seconds the request line and headers may take to arrive',
    details:
      "seconds the request line and headers may take to arrive; then `408 REQUEST_TIMEOUT` and the connection closes. A body has no overall deadline, so an upload's size does not depend on the line's speed",
  },
  {
    name: 'BODY_IDLE_TIMEOUT',
    fallback: '30',
    meaning: 'seconds a request body may stop arriving',
    details:
      'seconds a request body may stop arriving (no byte from the client while the service waits for one); then `408 REQUEST_TIMEOUT` if no answer has begun, the connection closes and nothing of the body is stored. A body that keeps arriving is never cut; `MAX_CONNECTIONS` bounds how many may trickle at once, `MAX_JSON_BYTES` and `MAX_FILE_BYTES` how much each may send',
  },
  {
    name: 'MAX_HEADER_BYTES',
    fallback: '16384',
    meaning: 'request line and headers together; beyond it 431',
    details: "request line and headers together (a sign-in's headers are about 1.5 KB); beyond it `431 HEADERS_TOO_LARGE`",
  },
  {
    name: 'MAX_JSON_BYTES',
    fallback: '1048576',
    meaning: 'JSON request bodies; beyond it 413',
    details: "JSON request bodies (the API's are a few hundred bytes); beyond it `413 PAYLOAD_TOO_LARGE`",
  },
  {
    name: 'KEEP_ALIVE_TIMEOUT',
    fallback: '72',
    meaning: 'seconds an idle kept-alive connection stays open',
    details:
      'seconds an idle kept-alive connection stays open (above the 60 s idle timeout of common load balancers). A request asking for an `Upgrade` (the service takes none) is answered as usual, with `Connection: close`',
  },
  {
    name: 'MAX_CONNECTIONS',
    fallback: '10000',
    meaning: 'open connections at once; beyond it new ones are closed',
    details: 'open connections at once; beyond it new connections are closed unanswered',
  },
  {
    name: 'SHUTDOWN_TIMEOUT',
    fallback: '10',
    meaning: 'seconds a SIGTERM or SIGINT lets requests in flight finish; then they are cut and the service exits',
    details:
      'seconds (0–3600) a `SIGTERM` or `SIGINT` lets the requests in flight finish: the service stops accepting connections at once, and at the deadline cuts those still open (an upload cut midway stores nothing), closes its stores and exits. A second signal exits at once (exit code 1)',
  },
  {
    name: 'CORS_ORIGINS',
    fallback: 'none',
    meaning: 'origins allowed to call from a browser (https://app.example.com, https://*.example.com)',
    details: 'origins allowed to call from a browser: `https://app.example.com`, `https://*.example.com`',
  },
  {
    name: 'CORS_EXTRA_ALLOW_HEADERS',
    fallback: 'none',
    meaning: "request headers a page of another origin may send besides the contract's, e.g. If-Match,If-None-Match",
    details:
      "request headers a page of another origin may send besides the contract's list, appended to `Access-Control-Allow-Headers` (and allowed in preflights): `If-Match,If-None-Match` for conditional writes, `Tus-Resumable,Upload-Length,Upload-Offset` for tus. Same-origin pages (the console) need nothing",
  },
  {
    name: 'CORS_EXTRA_EXPOSE_HEADERS',
    fallback: 'none',
    meaning: "response headers a page of another origin may read besides the contract's, e.g. ETag,X-Kept-Version-Id",
    details:
      "response headers a page of another origin may read besides the contract's list, appended to `Access-Control-Expose-Headers`: `ETag` (an upload's tag, for the next `If-Match`), `X-Kept-Version-Id` (a restore's undo), `Location,Upload-Offset` for tus",
  },
  {
    name: 'AUTH_DOMAINS',
    fallback: 'host of PUBLIC_BASE_URL; on a loopback HOST without it, also 127.0.0.1:PORT and localhost:PORT',
    meaning: 'domains a SIWE message may sign in to, each host[:port], optionally with its scheme',
    details:
      'domains a SIWE message may sign in to (comma-separated): the host of `PUBLIC_BASE_URL`, port included, and without `PUBLIC_BASE_URL` on a loopback `HOST` (`127.0.0.1`, `::1`, `localhost`) also `127.0.0.1:PORT` and `localhost:PORT`, as a browser on this machine may open either. Each `host[:port]` or with the scheme a message naming it may carry (`https://admin.example.com`); without a scheme, the scheme of `PUBLIC_BASE_URL`. A message without a scheme is accepted on any of them',
  },
  {
    name: 'AUTH_CHAIN_IDS',
    fallback: 'any',
    meaning: 'chain ids a SIWE message may name (its Chain ID), e.g. 1,8453',
    details: 'chain ids a SIWE message may name (its `Chain ID`), e.g. `1,8453`; another is `401 AUTH_CHAIN_NOT_ALLOWED`',
  },
  {
    name: 'AUTH_CLOCK_SKEW',
    fallback: '30',
    meaning: 'seconds of slack on issued-at, expiration and not-before',
    details: 'slack on issued-at, expiration and not-before',
  },
  {
    name: 'AUTH_MAX_AGE',
    fallback: '86400',
    meaning: 'the longest (seconds) a signed message authenticates, counted from its Issued At',
    details:
      "the longest a signed message authenticates, counted from its `Issued At` (or a timestamped plain message's timestamp): an `Expiration Time` may shorten it, never lengthen it",
  },
  {
    name: 'AUTH_PLAIN_MESSAGES',
    fallback: 'off',
    meaning: 'messages other than SIWE: off, timestamped or any',
    details:
      "other messages than SIWE: `off` (refused), `timestamped` (one line holding an ISO-8601 or Unix timestamp within `AUTH_MAX_AGE`, for legacy clients), `any` (any message: a static credential; warned about at start-up; after a sign-out everywhere none of that admin's plain messages works again, see [Signing in](signing-in.md))",
  },
  {
    name: 'AUTH_REQUIRE_SERVER_NONCE',
    fallback: 'false',
    meaning: 'SIWE nonces must come from GET /api/auth/nonce',
    details: 'SIWE nonces must be issued by `GET /api/auth/nonce` (signed, not stored: see [Signing in](signing-in.md))',
  },
  {
    name: 'AUTH_NONCE_TTL',
    fallback: '600',
    meaning: 'seconds an issued nonce may wait for its message',
    details: 'how long an issued nonce may wait for its message',
  },
  {
    name: 'AUTH_CACHE_SIZE',
    fallback: '10000',
    meaning: 'verified signatures (and principal lookups) kept in memory',
    details: 'verified signatures (and principal lookups) kept in memory',
  },
  {
    name: 'AUTH_STATE_REFRESH',
    fallback: '2',
    meaning: 'seconds (at most 5) a cached admin record or revocation may be stale',
    details:
      'how stale (at most 5) a cached admin record or the revocations held in memory may be; changes made elsewhere (CLI, other instances: logouts, log out everywhere, suspensions, permissions) are in force within this',
  },
  {
    name: 'INVITATION_MAX_SECONDS',
    fallback: '604800',
    meaning: 'the longest an invitation may stay open, in seconds (7 days)',
    details:
      'the longest `expiresIn` an invitation may ask for (`POST /api/invitations`), in seconds from 60; 7 days by default (see [Administering a tenant](administration.md))',
  },
  {
    name: 'PROPOSAL_SECONDS',
    fallback: '259200',
    meaning: 'how long a proposal waits for its approvals, in seconds (3 days)',
    details:
      'how long a proposal (an operation a policy holds) waits for enough signed intents before it expires, in seconds from 60 to 30 days; 3 days by default (see [Approvals](approvals.md))',
  },
  {
    name: 'PROPOSAL_RUN_LEASE_SECONDS',
    fallback: '60',
    meaning: "how long a held operation's run may go silent before another instance takes it over, in seconds",
    details:
      'how long the run of an approved proposal belongs to the instance running it after its last step, in seconds from 1 to 3600; 60 by default. Each step (a file restored, an admin changed) renews it; a run whose process died is taken over by another instance (or the same one after a restart) once it lapses, and completed only if nothing it acts on changed meanwhile by another hand, otherwise marked `failed` with the reason (see [Approvals](approvals.md))',
  },
  {
    name: 'OPERATOR_LABEL',
    fallback: 'operator',
    meaning: "the name the operator's local CLI acts under in the audit log",
    details:
      "the name (1 to 64 letters, digits, spaces and `. _ : @ -`, starting with a letter or digit) that the audit entries of the operator's local CLI (`wallet-admin` without `--url`) carry as `operator`, with no admin id; `operator` by default. Set it per operator (`OPERATOR_LABEL=alice`) to tell them apart: it is written into the tenants' audit chains and exports, so no host or OS user name is taken from the machine (see [Audit chain](audit-chain.md))",
  },
  {
    name: 'OFFSITE_URL',
    fallback: 'unset',
    meaning: 'file:///path or s3://bucket/prefix: where encrypted off-site copies are shipped',
    details:
      '`file:///absolute/path` (a mounted NAS or second disk; it must exist, outside `DATA_DIR`) or `s3://bucket/prefix` (any S3-compatible store, with the `OFFSITE_S3_*` settings): every committed change and the bytes of every file, version and backup reach it, encrypted to `OFFSITE_RECIPIENTS`, within about `OFFSITE_SHIP_INTERVAL` (see [Off-site copies](offsite.md)). Unset: nothing is shipped, nothing is captured',
  },
  {
    name: 'OFFSITE_RECIPIENTS',
    fallback: 'unset',
    meaning: 'the age recipients (age1…, comma-separated) off-site copies are encrypted to',
    details:
      'the age X25519 recipients (`age1…`, separated by commas or spaces) every segment and blob is encrypted to; required with `OFFSITE_URL`. The service holds only these public keys: keep the identities (`age-keygen -o key.txt`) offline, where `offsite verify`, `restore` and `drill` run',
  },
  {
    name: 'OFFSITE_S3_ENDPOINT',
    fallback: 'unset',
    meaning: 'the S3 endpoint of an s3:// OFFSITE_URL (unset: AWS)',
  },
  {
    name: 'OFFSITE_S3_REGION',
    fallback: 'us-east-1',
    meaning: 'the region of an s3:// OFFSITE_URL',
  },
  {
    name: 'OFFSITE_S3_FORCE_PATH_STYLE',
    fallback: 'false',
    meaning: 'true: path-style requests to the off-site bucket (MinIO, s3rver)',
  },
  {
    name: 'OFFSITE_S3_ACCESS_KEY_ID',
    fallback: 'unset',
    meaning: "the off-site bucket's access key (never the primary's)",
    details:
      "the access key of an `s3://` `OFFSITE_URL`, required with it; refused when it is the primary bucket's `AWS_ACCESS_KEY_ID`. Give it a key that can write, read and list, and delete objects only if `OFFSITE_KEEP_DAYS` is set (never delete versions); keep the bucket's versioning on and let lifecycle rules expire only noncurrent versions and incomplete multipart uploads: a blob is named by every later generation, so expiring objects by age breaks the newest copy (see [Off-site copies](offsite.md#the-target))",
  },
  {
    name: 'OFFSITE_S3_SECRET_ACCESS_KEY',
    fallback: 'unset',
    meaning: "the off-site bucket's secret key; never logged",
  },
  {
    name: 'OFFSITE_SHIP_INTERVAL',
    fallback: '1000',
    meaning: "milliseconds between the shipper's looks for new changes",
  },
  {
    name: 'OFFSITE_SNAPSHOT_INTERVAL',
    fallback: '86400',
    meaning: 'seconds after which the copy starts a new generation with a fresh snapshot',
  },
  {
    name: 'OFFSITE_TENANT_INTERVAL',
    fallback: '5',
    meaning: "seconds between an instance's looks for tenants whose own off-site copy has changes to ship",
  },
  {
    name: 'OFFSITE_TENANT_CONCURRENCY',
    fallback: '4',
    meaning: "tenants' own copies shipped at once by one instance: a slow tenant target holds one slot, never the others",
  },
  {
    name: 'OFFSITE_TENANT_SNAPSHOT_INTERVAL',
    fallback: '86400',
    meaning: "seconds after which a tenant's own copy starts a new generation with a fresh snapshot",
  },
  {
    name: 'OFFSITE_TENANT_RESCAN',
    fallback: '3600',
    meaning: "seconds after which a tenant's rows are compared with its copy even without an audited change",
  },
  {
    name: 'OFFSITE_TENANT_TIMEOUT',
    fallback: '30',
    meaning: "seconds a tenant's bucket may take to connect or stay silent before a round gives up",
  },
  {
    name: 'OFFSITE_TENANT_BACKOFF_MAX',
    fallback: '300',
    meaning: 'the longest pause, in seconds, between two tries at a failing tenant target',
  },
  {
    name: 'OFFSITE_KEEP_DAYS',
    fallback: '0',
    meaning: 'days off-site generations are kept (0: all)',
    details:
      "generations older than this many days are removed from the target, whole, only once a newer snapshot has passed a check, never one still under `OFFSITE_LOCK_DAYS`; 0 (the default) keeps all, for the target's lifecycle rules to expire",
  },
  {
    name: 'OFFSITE_LOCK_DAYS',
    fallback: '0',
    meaning: 'S3 Object Lock days on every off-site object (0: none)',
    details:
      "with an `s3://` target whose bucket has Object Lock enabled: every object is written with `COMPLIANCE` retention for this many days, so that no credentials (the service's included) can delete or overwrite it before then",
  },
  {
    name: 'OFFSITE_CHECK_INTERVAL',
    fallback: '0',
    meaning: 'seconds between checks that every off-site object is there with its hash (0: off)',
  },
  {
    name: 'SECRETS_KEY',
    fallback: 'unset',
    meaning: 'the key (32 bytes, hex or base64) every secret the service keeps is encrypted under; never logged',
    details:
      "the key every secret the service keeps is encrypted under (AES-256-GCM): webhook signing secrets and URLs today. 32 bytes, as 64 hex digits or base64 (`openssl rand -base64 32`), the same on every instance. Unset on SQLite, the service makes one in `DATA_DIR/secrets.key`; unset on PostgreSQL, creating a webhook answers 503 until it is set. Keep it beside the off-site age identity: a service rebuilt from an off-site copy without it cannot read its webhooks' secrets (see [Events](events.md#secrets-at-rest))",
  },
  {
    name: 'OUTBOUND_ALLOW',
    fallback: 'unset',
    meaning: 'hosts and ranges a tenant URL may reach though not public, e.g. 127.0.0.0/8 (tests, one-machine installs)',
    details:
      'hosts and ranges (CIDR), separated by commas or blanks, that a URL a tenant sets (a webhook, the endpoint of its own off-site bucket) may reach though they are not public addresses, and over `http://`: `127.0.0.0/8` for tests and single-machine installs. Unset: only global unicast addresses, over `https://`. Cloud metadata addresses (169.254.169.254, fd00:ec2::254, …) are never reached, whatever it lists (see [Events](events.md#outbound-addresses))',
  },
  {
    name: 'EVENTS_NATS_URL',
    fallback: 'unset',
    meaning: "a NATS server with JetStream that carries every tenant's events (nats://user:pass@host:4222); never logged with its password",
  },
  {
    name: 'EVENTS_NATS_STREAM',
    fallback: 'WALLET_ADMIN_EVENTS',
    meaning: 'the JetStream stream the events go to (made when missing, on subjects EVENTS_PREFIX.>)',
  },
  {
    name: 'EVENTS_AMQP_URL',
    fallback: 'unset',
    meaning: "a RabbitMQ (AMQP 0-9-1) server that carries every tenant's events (amqp://user:pass@host:5672)",
  },
  {
    name: 'EVENTS_AMQP_EXCHANGE',
    fallback: 'wallet-admin.events',
    meaning: 'the durable topic exchange the events are published to (declared when missing)',
  },
  {
    name: 'EVENTS_REDIS_URL',
    fallback: 'unset',
    meaning: "a Redis server whose streams carry every tenant's events (redis://:pass@host:6379)",
  },
  {
    name: 'EVENTS_REDIS_MAXLEN',
    fallback: '1000000',
    meaning: 'about how many events each Redis stream keeps (XADD MAXLEN ~)',
  },
  {
    name: 'EVENTS_PREFIX',
    fallback: 'wallet-admin',
    meaning: 'the first token of every NATS subject, AMQP routing key and Redis stream key',
  },
  {
    name: 'EVENTS_BROKER_RESULTS',
    fallback: 'ok',
    meaning: 'the results the brokers carry, comma-separated: ok, refused, failed',
  },
  {
    name: 'EVENTS_POLL_INTERVAL',
    fallback: '500',
    meaning: 'milliseconds between looks for events to deliver',
  },
  {
    name: 'EVENTS_TIMEOUT',
    fallback: '10000',
    meaning: "milliseconds one delivery attempt may take (a pair's lease is this plus 2 s)",
  },
  {
    name: 'EVENTS_RETRY_FOR',
    fallback: '86400',
    meaning: 'seconds an event is retried before it is dead-lettered and skipped',
  },
  {
    name: 'EVENTS_BACKOFF_MAX',
    fallback: '300000',
    meaning: 'the longest pause between two attempts at one event, in milliseconds',
  },
  {
    name: 'EVENTS_CONCURRENCY',
    fallback: '8',
    meaning: 'deliveries in flight at once per destination on one instance (each channel in order)',
  },
  {
    name: 'WEBHOOK_SECRET_GRACE',
    fallback: '86400',
    meaning: 'seconds a rotated webhook secret keeps signing beside the new one',
  },
  {
    name: 'EVENTS_LOG_DAYS',
    fallback: '7',
    meaning: 'days the delivery log keeps delivered and dead-lettered events',
  },
  {
    name: 'AUTH_FAIL_LIMIT',
    fallback: '100',
    meaning: 'failed sign-ins a client address may make per minute; then 429',
    details:
      'failed sign-ins (401) and wrong invitation tokens (`404 INVITATION_NOT_FOUND`, see [Administering a tenant](administration.md)) a client address may make per minute; then `429 RATE_LIMITED` with `Retry-After`. It also bounds the contract-wallet checks a client makes the RPC node answer (see [Signing in](signing-in.md)). Counted per IPv4 address (an IPv4-mapped IPv6 address `::ffff:a.b.c.d` counts as `a.b.c.d`) and per IPv6 network (`AUTH_FAIL_IPV6_PREFIX`), never per claimed wallet',
  },
  {
    name: 'AUTH_RECOVERY_THREADS',
    fallback: 'one per core beyond the first, at most 4',
    meaning: 'worker threads that check new sign-ins off the event loop; 0: on it',
    details:
      'worker threads that check new sign-ins (the message, its hashes and the secp256k1 recovery) off the event loop, so that a burst of new signatures never holds the other requests; `0` checks them on the event loop',
  },
  {
    name: 'AUTH_FAIL_IPV6_PREFIX',
    fallback: '64',
    meaning: "prefix length (1-128) under which an IPv6 client's failures count together",
    details:
      "the prefix length (1–128) under which an IPv6 client's failures count together: a client holding a /64 cannot rotate through its addresses for fresh attempts. `128` counts per address; every spelling of an address is the same one",
  },
  {
    name: 'TRUST_PROXY',
    fallback: 'none',
    meaning: 'proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client',
    details: 'proxies (addresses or CIDR ranges) whose `X-Forwarded-For` names the client; otherwise the peer address counts',
  },
  {
    name: 'METRICS_TOKEN',
    fallback: 'unset',
    meaning: 'when set, GET /metrics needs Authorization: Bearer <token>',
    details: 'when set, `GET /metrics` needs `Authorization: Bearer <token>`',
  },
  {
    name: 'REDIS_URL',
    fallback: 'unset',
    meaning: 'redis://… to share the failure counts between instances',
    details: '`redis://…` to share the failure counts between instances (in-process otherwise)',
  },
  {
    name: 'AUTH_RPC_URL',
    fallback: 'unset',
    meaning: 'JSON-RPC nodes for contract wallets, one per chain: 1=https://…,8453=https://…',
    details:
      "Ethereum JSON-RPC nodes for contract wallets (EIP-1271, EIP-6492), one per chain: `1=https://…,8453=https://…`; or one bare URL, whose chain is asked of the node (`eth_chainId`) at the first contract-wallet check. A message is checked only on its own chain's node (see [Signing in](signing-in.md)); no RPC is called without one",
  },
  {
    name: 'AUTH_RPC_TIMEOUT',
    fallback: '5',
    meaning: 'seconds one RPC call may take, its wait for a turn included',
    details: 'seconds one RPC call may take, its wait for a turn included; then `503 CONTRACT_WALLET_UNAVAILABLE`',
  },
  {
    name: 'AUTH_RPC_CONCURRENCY',
    fallback: '8',
    meaning: 'RPC calls in flight at once, all chains together',
    details:
      'RPC calls in flight at once, all chains together; four times as many may wait, and more get `503 CONTRACT_WALLET_UNAVAILABLE` at once',
  },
  {
    name: 'STORAGE',
    fallback: 'disk',
    meaning: 'where file bytes live: disk (DATA_DIR/storage) or s3',
    details:
      'where file bytes live: `disk` (`DATA_DIR/storage`) or `s3` (a bucket of AWS S3, MinIO, R2, Ceph…; backups and restores are server-side copies checked against the sha256 kept in object metadata)',
  },
  {
    name: 'S3_ENDPOINT',
    fallback: 'unset',
    meaning: 'the S3 endpoint for STORAGE=s3 (unset: AWS)',
  },
  {
    name: 'S3_BUCKET',
    fallback: 'unset',
    meaning: 'the bucket for STORAGE=s3 (credentials from the standard AWS_* variables)',
    details:
      'the bucket for `STORAGE=s3`; credentials from the standard `AWS_*` variables. Checksums are sent only where S3 requires them, which S3-compatible servers accept',
  },
  {
    name: 'S3_REGION',
    fallback: 'us-east-1',
    meaning: "the bucket's region",
  },
  {
    name: 'S3_FORCE_PATH_STYLE',
    fallback: 'false',
    meaning: 'path-style bucket URLs (MinIO and other S3-compatible stores)',
  },
  {
    name: 'S3_TIMEOUT',
    fallback: '60',
    meaning: 'seconds (at least BODY_IDLE_TIMEOUT) a request to the store may wait to connect or go without a byte; then 503',
    details:
      "seconds (at least `BODY_IDLE_TIMEOUT`, since an upload's connection to the store idles while its body pauses) one request to the store may wait to connect, or go without a byte either way; then it fails and the AWS SDK tries again, up to 3 attempts. A store that accepts connections and never answers thus turns a download into `503 STORAGE_UNAVAILABLE` after about 3 × `S3_TIMEOUT`, an upload (which then also tries to remove its temporary object) after about 6 ×, and the file's lock is let go, nothing changed. No bound on a whole transfer: a large one that keeps moving is never cut",
  },
  {
    name: 'S3_PUBLIC_BASE_URL',
    fallback: 'unset',
    meaning: "with STORAGE=s3: where the bucket's objects can be read without credentials",
    details:
      "with `STORAGE=s3`: where the bucket's objects can be read without credentials (a CDN or a public bucket, e.g. `https://files.example.com`). Every live file then also has a public copy at `files/<channelId>/<folder>/<filename>` in the bucket, which each upload, restore and delete brings in line right after it commits (queued in its transaction; one the store failed is retried every minute), and restores answer `S3_PUBLIC_BASE_URL/files/<channelId>/<folder>/<filename>`, percent-encoded. The service itself never reads the copies",
  },
  {
    name: 'MAX_FILE_BYTES',
    fallback: '1073741824',
    meaning: 'largest upload; larger bodies get 413 and change nothing',
    details: 'largest upload (1 GiB); larger bodies get 413 and change nothing',
  },
  {
    name: 'ARCHIVE_MAX_PER_ADMIN',
    fallback: '2',
    meaning: 'ZIP archives one admin may have streaming at once; beyond it 429',
    details:
      'ZIP archives of a folder or a channel (`GET …/archive`) one admin may have streaming at once, counted on every instance sharing the database; one more is refused with `429 RATE_LIMITED` until one ends (docs/archives.md)',
  },
  {
    name: 'UPLOAD_EXPIRY',
    fallback: '86400',
    meaning: 'seconds an unfinished resumable upload lives past its last PATCH',
    details:
      'seconds an unfinished resumable (tus) upload lives past its creation or its last `PATCH` (answered as `Upload-Expires`); then its bytes are removed and its URL answers 404 (docs/uploads.md)',
  },
  {
    name: 'UPLOADS_MAX_PER_ADMIN',
    fallback: '20',
    meaning: 'unfinished resumable uploads one admin may have; beyond it 429',
    details:
      'unfinished resumable (tus) uploads one admin may have, on every instance sharing the database; one more creation is refused with `429 RATE_LIMITED` (docs/uploads.md). Each reserves its length under the quotas until it completes or expires',
  },
  {
    name: 'FILE_URL_SIGNING',
    fallback: 'false',
    meaning: 'true: restores answer a link that downloads without wallet headers',
    details:
      "`true`: restores answer a link that downloads without wallet headers until `FILE_URL_TTL` passes: on disk the service's own URL signed with `FILE_URL_SECRET`; with `STORAGE=s3` a presigned GET of the object (the store serves the bytes, with the stored type and the service's `Content-Disposition`), which wins over `S3_PUBLIC_BASE_URL`",
  },
  {
    name: 'FILE_URL_SECRET',
    fallback: 'unset',
    meaning: 'HMAC-SHA256 key of signed links, at least 32 characters, the same on every instance',
    details:
      "HMAC-SHA256 key of the service's signed links, at least 32 characters, the same on every instance (required with signing on disk; not needed for presigned S3 links)",
  },
  {
    name: 'FILE_URL_TTL',
    fallback: '3600',
    meaning: 'seconds a signed link lives',
    details: 'lifetime of a signed link (at most 604800, 7 days, for presigned S3 links)',
  },
  {
    name: 'BACKUP_INTERVAL',
    fallback: '0',
    meaning: 'seconds between scheduled backups of every changed channel; 0: none',
    details: 'back up every changed channel this often; `0` = no scheduled backups',
  },
  {
    name: 'BACKUP_KEEP_LAST',
    fallback: '30',
    meaning: 'backups of a channel always kept (newest first)',
    details: 'backups of a channel always kept (newest first)',
  },
  {
    name: 'BACKUP_KEEP_DAYS',
    fallback: '30',
    meaning: 'backups younger than this many days are kept too',
    details:
      'backups younger than this are kept too; older ones beyond `BACKUP_KEEP_LAST` are removed (hourly, and after each scheduled backup)',
  },
  {
    name: 'BACKUP_LOCK_MAX_DAYS',
    fallback: '365',
    meaning: 'the furthest ahead, in days, a backup lock may end',
    details:
      "the furthest ahead, in days from now, the `until` of a backup lock may be (`PUT /api/channels/{channelRef}/backups/{backupTimestamp}/lock`; `400 LOCK_TOO_LONG` beyond it), so that a stolen key cannot pin a tenant's storage for ever; extending a lock is capped from now the same way. Locks already set keep their date when this is lowered (see [Locked backups](backup-locks.md))",
  },
  {
    name: 'VERSION_KEEP_DAYS',
    fallback: '30',
    meaning: 'days replaced and deleted versions are kept; the newest of a file always is',
    details: 'versions kept by replacements, restores and deletes; the newest version of a file is never removed',
  },
];
