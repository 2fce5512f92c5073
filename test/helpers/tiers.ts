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
