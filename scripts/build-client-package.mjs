// Builds packages/client/dist, the contents of the @wallet-admin/client package, from src/client:
// index.js (one ES module for browsers and Node, with the keccak-256 of @noble/hashes bundled, so
// that the package depends on nothing), the .d.ts declarations that tsc writes from the sources,
// and the licence of what is bundled. Run by the package's prepack, so `npm pack ./packages/client`
// builds what it packs; a second or two (tsc).
import { execFile } from 'node:child_process';
import { copyFile, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { CLIENT_BUILD_OPTIONS } from './bundles.mjs';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const PACKAGE_DIR = path.join(REPO_ROOT, 'packages/client');
const OUT = path.join(PACKAGE_DIR, 'dist');
const require = createRequire(import.meta.url);

export async function buildClientPackage() {
  await rm(OUT, { recursive: true, force: true });
  await build({ ...CLIENT_BUILD_OPTIONS, outfile: path.join(OUT, 'index.js') });
  await declarations();
  // Beside the module the client imports: the package exports no package.json.
  const noble = path.dirname(require.resolve('@noble/hashes/sha3.js'));
  await copyFile(path.join(noble, 'LICENSE'), path.join(OUT, 'LICENSE.noble-hashes'));
}

/**
 * One .d.ts per source file (packages/client/tsconfig.json). tsc keeps the sources' ".ts" import
 * specifiers in declarations; they become ".js", the files the package has, so that every
 * resolution mode (node16, nodenext, bundler) finds them.
 */
async function declarations() {
  const tsc = path.join(path.dirname(require.resolve('typescript/package.json')), 'bin/tsc');
  await promisify(execFile)(process.execPath, [tsc, '-p', path.join(PACKAGE_DIR, 'tsconfig.json')], { cwd: REPO_ROOT }).catch((error) => {
    throw new Error(`tsc failed on the client's declarations:\n${error.stdout}${error.stderr}`);
  });
  for (const name of await readdir(OUT)) {
    if (!name.endsWith('.d.ts')) continue;
    const file = path.join(OUT, name);
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace(/((?:from|import)\s*\(?\s*['"]\.{1,2}\/[^'"]+)\.ts(['"])/g, '$1.js$2'));
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildClientPackage();
