import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI_ENTRY = new URL('./cli-entry.ts', import.meta.url);

/**
 * Packages that stay outside a bundle: native addons (their binaries are found from their own
 * folder) and those the sources load only when a setting asks for them.
 */
const UNBUNDLED = ['better-sqlite3', 'secp256k1', 'keccak', 'pg-native', 'ioredis', 'viem', '@aws-sdk/*'];

/** CommonJS packages inside an ES module bundle still call `require` for Node's own modules. */
const REQUIRE_SHIM = "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);";

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
    file = build({
      entryPoints: [fileURLToPath(entry)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      external: UNBUNDLED,
      banner: { js: REQUIRE_SHIM },
      logLevel: 'warning',
    }).then(() => outfile);
    built.set(key, file);
  }
  return file;
}

/** `wallet-admin` (what bin/wallet-admin.js runs through tsx) as one bundle. */
export function cliBundle(): Promise<string> {
  return bundleForSpawn(CLI_ENTRY);
}
