import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLE_OPTIONS } from '../../scripts/bundles.mjs';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const built = new Map<string, Promise<string>>();

/**
 * Bundles a TypeScript entry point with what it imports into one ES module that plain `node`
 * starts in half the time tsx needs (resolving and compiling hundreds of package files is most of
 * a start): for tests that start a process hundreds of times. Built once per test process and
 * removed when it exits. The bundle sits one level below the repository root, so that what the
 * sources resolve from their own location (../package.json, node_modules) still resolves.
 */
export function bundleForSpawn(entry: URL): Promise<string> {
  const key = entry.href;
  let file = built.get(key);
  if (file === undefined) {
    const outfile = path.join(REPO_ROOT, '.test-build', `${path.basename(entry.pathname, '.ts')}-${process.pid}.mjs`);
    process.once('exit', () => rmSync(outfile, { force: true }));
    // The settings of `npm run build` (scripts/bundles.mjs), in one file per entry point.
    file = build({ ...BUNDLE_OPTIONS, entryPoints: [fileURLToPath(entry)], outfile }).then(() => outfile);
    built.set(key, file);
  }
  return file;
}
