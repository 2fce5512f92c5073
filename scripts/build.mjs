// Compiles the TypeScript sources of `wallet-admin` into JavaScript under dist/ (git-ignored): the CLI,
// which bin/wallet-admin.js runs, and the client library (`wallet-admin/client`). Node starts the
// compiled CLI in a fraction of the time a TypeScript loader needs to resolve and compile hundreds of
// files at each start. Run by `prepare` (npm ci), `prestart` and
// `pretest`; takes about a second. The tests bundle their own entry points with the same
// settings (BUNDLE_OPTIONS, used by test/helpers/bundle.ts).
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Packages loaded from node_modules rather than bundled: native addons (their binaries are found
 * from their own folder), an optional package, and heavy ones the sources import only where a
 * command or a setting needs them (viem, the AWS SDK, ioredis, pg), so that they stay unloaded
 * otherwise.
 */
const EXTERNAL_PACKAGES = ['better-sqlite3', 'secp256k1', 'keccak', 'pg', 'pg-native', 'ioredis', 'viem', '@aws-sdk/*'];

/** CommonJS packages inside an ES module bundle still call `require` for Node's own modules. */
const REQUIRE_SHIM = "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);";

/**
 * One ES module per entry point with what it imports. Its file must sit one level below the
 * repository root: the sources find ../package.json (and node_modules) from their own location.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  external: EXTERNAL_PACKAGES,
  banner: { js: REQUIRE_SHIM },
  logLevel: 'warning',
};

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * dist/main.mjs, the CLI (src/cli/main.ts). What the sources reach only through `await import()`
 * (the server, the file services, viem's signing) goes to chunks of its own beside it, read only
 * by the commands that reach them.
 */
export async function buildCli() {
  // A fresh folder each time, so that no chunk of an older build stays behind.
  await rm(`${REPO_ROOT}dist`, { recursive: true, force: true });
  await build({
    ...BUNDLE_OPTIONS,
    entryPoints: { main: `${REPO_ROOT}src/cli/main.ts` },
    outdir: `${REPO_ROOT}dist`,
    outExtension: { '.js': '.mjs' },
    splitting: true,
  });
}

/**
 * dist/client/index.mjs, `wallet-admin/client` (src/client/index.ts): one ES module for browsers and
 * Node alike. Platform neutral, so that an import of a Node module fails the build instead of a page.
 */
export const CLIENT_BUILD_OPTIONS = {
  bundle: true,
  platform: 'neutral',
  format: 'esm',
  target: 'es2022',
  entryPoints: [`${REPO_ROOT}src/client/index.ts`],
  logLevel: 'warning',
};

export async function buildClient() {
  await build({ ...CLIENT_BUILD_OPTIONS, outfile: `${REPO_ROOT}dist/client/index.mjs` });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildCli();
  await buildClient();
}
