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
import { availableParallelism } from 'node:os';
import { runSuite } from './helpers/suite-runner.ts';
import { unitTierFiles } from './helpers/tiers.ts';

// The files share nothing (each service has its own temp DATA_DIR), so they run side by side, in a
// few processes that each run a share of them (test/helpers/suite-runner.ts says why). Three per
// core: a file spends about half its time waiting (timers, fsync, child processes), and other
// shards use the core meanwhile.
const SHARDS = 3 * availableParallelism();
// The helpers read the tier from the environment, in this process's children too.
process.env.WALLET_ADMIN_TEST_TIER = 'unit';
await runSuite([{ label: 'unit tier', files: unitTierFiles(), concurrency: SHARDS, isolation: 'shards' }]);
