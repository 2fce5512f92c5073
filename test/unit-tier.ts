/**
 * `npm run test:unit`: the tests that need nothing but Node — no PostgreSQL, Redis, S3 server,
 * Chromium, chain or network — on the embedded backends only (WALLET_ADMIN_TEST_TIER=unit, read in
 * test/helpers/backends.ts). `npm test` runs every file on every backend, these included.
 *
 * The tier is a naming convention, not a list: a file is in it when its name ends `.unit.test.ts`
 * (test/helpers/tiers.ts), wherever it lives among the subject folders (test/auth, test/files, …).
 * A suffix, not a folder of its own, because the folders say what a test is about and a subject's
 * tests belong together whatever they need; and because the mark sits in the name that every
 * listing, diff and `node --test` line shows, so a test's needs are seen where it is. The default,
 * a plain `.test.ts`, is the whole suite: a new test that needs a server is right without doing
 * anything, and only the claim "nothing but Node" has to be made, and is checked
 * (test/suite/test-tiers.unit.test.ts: no unit-tier file imports the browser, chain, Redis or
 * crash-loop helpers, and every helper that starts a server refuses to in this tier).
 *
 * Not in the tier, and so whole-suite only: what needs a server (postgres-*, s3-*, the Redis limit,
 * contract wallets on anvil, two instances), and what starts processes many times or runs long
 * (the CLI tests, SIGKILL crash loops, the traversal corpus over HTTP, the route fuzzer, faults),
 * the browser tests (Chromium), and the Node.js 20 user's commands (old-node: a registry download
 * when .cache/node/20 is missing). A suite written for every backend (ENGINES, FILE_SETUPS) may be
 * in the tier: here it runs on SQLite and disk only.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { TEST_DIR, unitTierFiles } from './helpers/tiers.ts';

// The files share nothing (each service has its own temp DATA_DIR), so they run side by side.
// A test or hook that hangs fails after ten minutes, and its file's process is ended then
// (--test-force-exit): once a socket left open held a file's `after` for the whole CI hour.
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${availableParallelism()}`,
    '--test-timeout=600000',
    '--test-force-exit',
    ...unitTierFiles().map((file) => TEST_DIR + file),
  ],
  { stdio: 'inherit', env: { ...process.env, WALLET_ADMIN_TEST_TIER: 'unit' } },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
