/**
 * `npm run test:unit`: the tests that need nothing but Node — no PostgreSQL, Redis, S3 server,
 * chain or network — on the embedded backends only (WALLET_ADMIN_TEST_TIER=unit, read in
 * test/helpers/backends.ts). `npm test` runs every file on every backend, these included.
 *
 * Not here, and so whole-suite only: what needs a server (postgres-*, s3-*, the Redis limit,
 * contract wallets on anvil, two instances), and what starts processes many times or runs long
 * (the CLI tests, SIGKILL crash loops, the traversal corpus over HTTP, the route
 * fuzzer, faults), the browser tests (Chromium), and the Node.js 20 user's commands (old-node:
 * a registry download when .cache/node/20 is missing).
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const UNIT_FILES = [
  'auth/bounded-cache.test.ts',
  'auth/call-gate.test.ts',
  'auth/credential-answers.test.ts',
  'auth/failure-key.test.ts',
  'auth/keccak256.test.ts',
  'auth/keystore.test.ts',
  'auth/message-lifetime.test.ts',
  'auth/verification-pool.test.ts',
  'auth/siwe-grammar-vectors.test.ts',
  'auth/siwe-scheme.test.ts',
  'auth/siwe-verification-vectors.test.ts',
  'auth/siwe.test.ts',
  'auth/wallet-authenticator.test.ts',
  'cli/option-names.test.ts',
  'cli/secret-input.test.ts',
  'cli/supported-node.test.ts',
  'cli/terminal-text.test.ts',
  'client/client.test.ts',
  'client/client-types.test.ts',
  'config/config.test.ts',
  'config/settings.test.ts',
  'console/api-reference-paste.test.ts',
  'console/console-bundle.test.ts',
  'console/console-serving.test.ts',
  'demo/demo-seed.test.ts',
  'docs/configuration-doc.test.ts',
  'files/channel-access.test.ts',
  'files/concurrent-restores.test.ts',
  'files/conditional-writes.test.ts',
  'files/file-endpoints.test.ts',
  'files/format-character-names.test.ts',
  'files/legacy-spellings-upgrade.test.ts',
  'files/restore-flow.test.ts',
  'files/scope-restore-plan.test.ts',
  'files/retention-and-schedule.test.ts',
  'files/signed-links.test.ts',
  'files/unicode-names.test.ts',
  'files/upload-content-type.test.ts',
  'files/download-length.test.ts',
  'files/write-faults.test.ts',
  'logging/batched-output.test.ts',
  'names/name-rules.test.ts',
  'logging/log-secrets.test.ts',
  'http/auth-rate-limit.test.ts',
  'http/auth-test.test.ts',
  'http/authorization-matrix.test.ts',
  'http/cors-and-platform.test.ts',
  'http/forged-cursors.test.ts',
  'http/http-framing.test.ts',
  'http/listings.test.ts',
  'http/metrics.test.ts',
  'http/nonces-and-instances.test.ts',
  'http/openapi-document.test.ts',
  'http/openapi-lint.test.ts',
  'http/query-parameters.test.ts',
  'http/request-log.test.ts',
  'http/url-to-file.test.ts',
  'http/resource-limits.test.ts',
  'http/sessions.test.ts',
  'service/serve.test.ts',
  'service/shutdown.test.ts',
  'service/unwritable-data-dir.test.ts',
  'blobs/disk-blob-storage.test.ts',
  'blobs/lock-files.test.ts',
  'blobs/safe-path.test.ts',
  'metadata/database.test.ts',
  'metadata/durable-transaction.test.ts',
  'metadata/driver-errors.test.ts',
  'metadata/ids.test.ts',
  'metadata/metadata-store.test.ts',
  'metadata/sqlite-writers.test.ts',
];

const testDir = fileURLToPath(new URL('.', import.meta.url));
// The files share nothing (each service has its own temp DATA_DIR), so they run side by side.
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${availableParallelism()}`, ...UNIT_FILES.map((file) => testDir + file)],
  { stdio: 'inherit', env: { ...process.env, WALLET_ADMIN_TEST_TIER: 'unit' } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
