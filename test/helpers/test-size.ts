/**
 * How big the heaviest loops run: the one knob for them (bench/README.md, "Soak", lists which).
 * `npm test` runs them at a CI size, small enough for the whole suite to stay within its time
 * budget on a 2-core machine, large enough for what each asserts (a crash suite's kills still land
 * mid-operation, and the test says so); `npm run soak` sets WALLET_ADMIN_TEST_SIZE=full and runs
 * the files that have such loops at the full size, which is what their numbers in README.md are.
 */
const FULL = ((size) => {
  if (size === undefined || size === '' || size === 'ci') return false;
  if (size === 'full') return true;
  throw new Error(`WALLET_ADMIN_TEST_SIZE must be ci, full or unset, not ${size}`);
})(process.env.WALLET_ADMIN_TEST_SIZE);

/** `ci` in `npm test`, `full` under `npm run soak` (WALLET_ADMIN_TEST_SIZE=full). */
export function testSize<T>(ci: T, full: T): T {
  return FULL ? full : ci;
}
