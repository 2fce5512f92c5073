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
