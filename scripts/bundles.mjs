// How `npm run build` compiles the TypeScript sources of `wallet-admin` into JavaScript under dist/
// (git-ignored): the CLI, which bin/wallet-admin.js runs, the browser console (dist/console, which
// the service serves under /console/) and the API reference page's script (dist/api-reference,
// served under /api/docs/assets/). The client library is a package of its own
// (scripts/build-client-package.mjs). Node starts the compiled CLI in a fraction of the time a
// TypeScript loader needs to resolve and compile hundreds of files at each start.
// scripts/build.mjs runs buildAll (after checking the Node.js version, which these imports would
// not survive on an old one); `prepare` (npm ci), `prestart` and `pretest` run that; it takes about
// a second. The tests bundle their own entry points with the same settings (BUNDLE_OPTIONS, used by
// test/helpers/bundle.ts).
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
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
    // The sign-in verification worker is an entry of its own (src/auth/verification-pool.ts starts it).
    entryPoints: { main: `${REPO_ROOT}src/cli/main.ts`, 'verification-worker': `${REPO_ROOT}src/auth/verification-worker.ts` },
    outdir: `${REPO_ROOT}dist`,
    outExtension: { '.js': '.mjs' },
    splitting: true,
  });
}

/**
 * The client library (src/client/index.ts), @wallet-admin/client: one ES module for browsers and
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

const CONSOLE_SOURCE = `${REPO_ROOT}src/console/`;
const CONSOLE_OUT = `${REPO_ROOT}dist/console/`;
/** Where the page finds its files; the service serves dist/console/assets there (src/http/console/pages.ts). */
const CONSOLE_ASSETS_URL = '/console/assets/';

/**
 * dist/console: the admin console (src/console/main.tsx, Preact) for browsers. Every file under
 * assets/ has its content's hash in its name, so that the service can let browsers cache it for a
 * year; index.html, the one file without a hash, names the current ones. Its CSS is its own file
 * and nothing is inline, because the page's Content-Security-Policy allows only 'self'.
 */
export async function buildConsole() {
  await rm(CONSOLE_OUT, { recursive: true, force: true });
  const assetsDir = `${CONSOLE_OUT}assets/`;
  const result = await build({
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    sourcemap: 'linked',
    entryPoints: [`${CONSOLE_SOURCE}main.tsx`],
    entryNames: '[name]-[hash]',
    // What a view imports with import() (the log verifier) is a chunk of its own, fetched when used;
    // code it shares with the page is a chunk too, which index.html preloads beside the entry.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    plugins: [viemWithoutCcipRead],
    // Images and fonts the styles or scripts import become hashed files beside them.
    assetNames: '[name]-[hash]',
    loader: { '.svg': 'file', '.png': 'file', '.woff2': 'file' },
    publicPath: CONSOLE_ASSETS_URL,
    outdir: assetsDir,
    metafile: true,
    logLevel: 'warning',
  });
  const entry = Object.entries(result.metafile.outputs).find(([file, output]) => output.entryPoint !== undefined && file.endsWith('.js'));
  if (entry === undefined) throw new Error('esbuild wrote no output for src/console/main.tsx');
  const [script, { cssBundle, imports }] = entry;
  await removeUnreachedChunks(result.metafile.outputs, script);
  const icon = await hashedCopy(`${CONSOLE_SOURCE}icon.svg`, assetsDir);
  // The entry's static imports, named in index.html so that the browser fetches them with the entry
  // rather than after reading it.
  const preloads = imports
    .filter((imported) => imported.kind === 'import-statement')
    .map((imported) => `<link rel="modulepreload" href="${assetUrl(imported.path)}" />`)
    .join('\n    ');
  const urls = { '%SCRIPT%': assetUrl(script), '%STYLE%': cssBundle && assetUrl(cssBundle), '%ICON%': icon, '%PRELOADS%': preloads };
  let html = await readFile(`${CONSOLE_SOURCE}index.html`, 'utf8');
  for (const [placeholder, url] of Object.entries(urls)) {
    if (!html.includes(placeholder)) continue;
    if (url === undefined) throw new Error(`src/console/index.html names ${placeholder}, but the build has no such file`);
    html = html.replaceAll(placeholder, url);
  }
  await writeFile(`${CONSOLE_OUT}index.html`, html);
}

/**
 * With splitting, esbuild makes every import() target a root before it drops unused code
 * (evanw/esbuild#3704, #3252): viem's eth_call imports its CCIP-Read module that way, and that
 * module imports eth_call back, so 20 KB gzipped of RPC code the console never runs would ride along
 * with the log verifier. The console makes no eth_call through viem: that import() resolves here to a
 * module that says so, and the code around it is then dropped as unused.
 */
const viemWithoutCcipRead = {
  name: 'viem-without-ccip-read',
  setup(build) {
    build.onResolve({ filter: /\/ccip\.js$/ }, (args) =>
      args.kind === 'dynamic-import' && args.importer.includes(`${path.sep}viem${path.sep}`)
        ? { path: 'ccip', namespace: 'no-ccip-read' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'no-ccip-read' }, () => ({
      contents: `export const offchainLookupSignature = '0x556f1830';
export function offchainLookup() { throw new Error('the wallet-admin console does not follow CCIP-Read (EIP-3668) lookups'); }`,
      loader: 'js',
    }));
  },
};

/**
 * esbuild writes a chunk for every import() it meets, even one in code it then drops as unused (viem's
 * WebSocket transport): such a chunk is never fetched. Removed with its source map, so that what
 * dist/console holds is what the page can load (test/console/console-bundle.unit.test.ts holds it so).
 */
async function removeUnreachedChunks(outputs, entryScript) {
  const reached = new Set();
  const queue = [entryScript];
  while (queue.length > 0) {
    const file = queue.pop();
    if (reached.has(file)) continue;
    reached.add(file);
    queue.push(...outputs[file].imports.filter((imported) => !imported.external).map((imported) => imported.path));
  }
  for (const file of Object.keys(outputs)) {
    if (file.endsWith('.js') && !reached.has(file)) {
      await rm(file);
      await rm(`${file}.map`, { force: true });
    }
  }
}

/**
 * dist/api-reference/start.js: the API reference page's own script (src/api-reference/start.ts),
 * which starts Swagger UI with this service's plugins; the service serves it beside Swagger UI's
 * files under /api/docs/assets/. A classic script, as Swagger UI's bundle before it is one.
 */
export async function buildApiReference() {
  await build({
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    // Minified, as the console is: every reader of the reference downloads it (test/console/console-bundle.unit.test.ts holds its size).
    minify: true,
    entryPoints: [`${REPO_ROOT}src/api-reference/start.ts`],
    outfile: `${REPO_ROOT}dist/api-reference/start.js`,
    logLevel: 'warning',
  });
}

/** The URL of a file esbuild wrote (its path relative to the working directory). */
function assetUrl(output) {
  return CONSOLE_ASSETS_URL + path.basename(output);
}

/** Copies a file into `dir` as name-HASH.ext; returns its URL. */
async function hashedCopy(file, dir) {
  const bytes = await readFile(file);
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  const { name, ext } = path.parse(file);
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}${name}-${hash}${ext}`, bytes);
  return `${CONSOLE_ASSETS_URL}${name}-${hash}${ext}`;
}

/** Everything `npm run build` writes. */
export async function buildAll() {
  const inputs = await newestInput();
  if (await upToDate(inputs)) return;
  await buildCli();
  // After buildCli, which empties dist/.
  await buildConsole();
  await buildApiReference();
  await writeFile(BUILD_STAMP, JSON.stringify({ inputs }));
}

/**
 * What the build reads: when none of it changed since the last build, the build does nothing. Not
 * only quicker: `npm exec -- wallet-admin` with an empty npm cache installs this folder and runs its
 * `prepare`, and a build empties dist/ first, under a service running from it beside (the CLI beside
 * a running service is what the README's walk-through and docs/operations.md show), whose next lazy import would then find no chunk.
 */
const BUILD_INPUTS = ['src', 'scripts/bundles.mjs', 'scripts/build.mjs', 'package-lock.json'];
const BUILD_STAMP = `${REPO_ROOT}dist/.build-stamp.json`;
/** The last file of each part the build writes: missing, the build runs whatever the stamp says. */
const BUILD_OUTPUTS = ['dist/main.mjs', 'dist/console/index.html', 'dist/api-reference/start.js'];

async function newestInput() {
  let newest = 0;
  const visit = async (relative) => {
    const info = await stat(`${REPO_ROOT}${relative}`);
    if (!info.isDirectory()) newest = Math.max(newest, info.mtimeMs);
    else for (const name of await readdir(`${REPO_ROOT}${relative}`)) await visit(`${relative}/${name}`);
  };
  for (const input of BUILD_INPUTS) await visit(input);
  return newest;
}

async function upToDate(inputs) {
  try {
    for (const output of BUILD_OUTPUTS) await stat(`${REPO_ROOT}${output}`);
    return JSON.parse(await readFile(BUILD_STAMP, 'utf8')).inputs === inputs;
  } catch {
    return false;
  }
}
