import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** test/, with a trailing separator. */
export const TEST_DIR = fileURLToPath(new URL('../', import.meta.url));

/** The name of a file of the unit tier ends so (test/unit-tier.ts says why a suffix). */
export const UNIT_SUFFIX = '.unit.test.ts';

/** Every test file under test/, at any depth: paths relative to test/, '/'-separated, sorted. */
export function testFiles(): string[] {
  return (readdirSync(TEST_DIR, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => file.split(path.sep).join('/'))
    .sort();
}

/** The unit tier: the files that say they need nothing but Node by their name. */
export function unitTierFiles(): string[] {
  return testFiles().filter((file) => file.endsWith(UNIT_SUFFIX));
}

/**
 * The files that stop or restart a server the others share (PostgreSQL's cluster, by pg_ctlcluster):
 * `npm test` runs them alone, after the rest (test/whole-suite.ts). A file beside one of them would
 * meet the outage: a CI rehearsal with two files at a time once failed so. The list is checked
 * (test/suite/test-tiers.unit.test.ts): a file that reaches pg_ctlcluster and is not here fails.
 */
export const ALONE_FILES = new Map<string, string>([
  ['files/faults.test.ts', 'stops and starts the PostgreSQL cluster under load'],
  ['metadata/postgres-restart.test.ts', 'restarts the PostgreSQL cluster under a running service'],
]);
