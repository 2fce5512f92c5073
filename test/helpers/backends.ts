/**
 * Which backends the suites parameterised by backend run on, per test tier: the one place that
 * reads the tier. `npm run test:unit` sets WALLET_ADMIN_TEST_TIER=unit: only the embedded backends
 * (SQLite, disk), which need nothing but Node. Unset (`npm test`): every backend.
 */
const UNIT_TIER = ((tier) => {
  if (tier === undefined || tier === '') return false;
  if (tier === 'unit') return true;
  throw new Error(`WALLET_ADMIN_TEST_TIER must be unit or unset, not ${tier}`);
})(process.env.WALLET_ADMIN_TEST_TIER);

export type Engine = 'sqlite' | 'postgres';
/** The metadata engines. */
export const ENGINES: Engine[] = UNIT_TIER ? ['sqlite'] : ['sqlite', 'postgres'];

/** Where metadata and file bytes live: an engine on local disk, or PostgreSQL with an S3 bucket. */
export type Setup = Engine | 'postgres+s3';
/** The file, backup and restore suites run on each: the embedded default and both scale-out parts. */
export const FILE_SETUPS: Setup[] = UNIT_TIER ? ['sqlite'] : ['sqlite', 'postgres', 'postgres+s3'];

/**
 * Called first by every helper that starts or reaches something besides Node (PostgreSQL, an S3
 * server, Redis, Chromium, a local chain). In the unit tier it throws: a `*.unit.test.ts` file
 * that reaches one fails `npm run test:unit` at once, with what to do, rather than passing here
 * because PostgreSQL happens to run and failing on a machine (or Node version in CI) without it.
 */
export function serverNeeded(what: string): void {
  if (!UNIT_TIER) return;
  throw new Error(
    `${what} is not in the unit tier (WALLET_ADMIN_TEST_TIER=unit: nothing but Node). A test that needs it lives in a file ` +
      'not named *.unit.test.ts (whole suite only), or runs on the backends of ENGINES / FILE_SETUPS, which the unit tier narrows.',
  );
}

/** The Redis of the tests that share the failed-authentication limit (whole suite only). */
export function testRedisUrl(): string {
  serverNeeded('Redis');
  return process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
}
