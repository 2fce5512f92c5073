import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `wallet-admin` as installed: it runs dist/, which `npm run build` compiles from src/. */
const BIN = path.join(REPO_ROOT, 'bin/wallet-admin.js');

/** What the build writes (last of each part) and what it reads. */
const BUILT = ['dist/main.mjs', 'dist/console/index.html', 'dist/api-reference/start.js'];
const SOURCES = ['src', 'scripts/bundles.mjs'];

function newestSource(): { file: string; mtimeMs: number } {
  let newest = { file: '', mtimeMs: 0 };
  const visit = (relative: string): void => {
    const stats = statSync(path.join(REPO_ROOT, relative));
    if (stats.isDirectory()) {
      for (const name of readdirSync(path.join(REPO_ROOT, relative))) visit(path.join(relative, name));
    } else if (stats.mtimeMs > newest.mtimeMs) newest = { file: relative, mtimeMs: stats.mtimeMs };
  };
  for (const source of SOURCES) visit(source);
  return newest;
}

let checked: string | undefined;

/**
 * The bin, once dist/ is known to be built from the sources as they are now. A test of the bin
 * over a missing or stale dist/ would pass or fail on code that is no longer there, so it stops
 * with what to run instead. The test does not build itself: a build empties dist/ first, under
 * every other process running the bin at that moment (another test file, `npm start`).
 * `npm test` and `npm run test:unit` build first (their pre-scripts). Checked once per process.
 */
export function builtBin(): string {
  if (checked !== undefined) return checked;
  const source = newestSource();
  for (const output of BUILT) {
    let builtAt: number;
    try {
      builtAt = statSync(path.join(REPO_ROOT, output)).mtimeMs;
    } catch {
      throw new Error(`${output} is missing: run "npm run build" before this test (npm test does)`);
    }
    if (builtAt < source.mtimeMs) {
      throw new Error(`${output} was built before ${source.file} last changed: run "npm run build" before this test (npm test does)`);
    }
  }
  checked = BIN;
  return BIN;
}
