import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from '../../errors/errno-code.ts';
import { PACKAGE_ROOT } from '../../package-root.ts';
import { type StaticFile, staticFile } from '../server/static-file.ts';

/** Where `npm run build` writes the console (scripts/bundles.mjs, buildConsole). */
export const DEFAULT_CONSOLE_DIR = path.join(PACKAGE_ROOT, 'dist', 'console');

export interface ConsoleAssets {
  index: StaticFile;
  /** By file name: the hashed names under assets/, one level, nothing else. */
  assets: ReadonlyMap<string, StaticFile>;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

function consoleFile(name: string, body: Buffer): StaticFile {
  return staticFile(body, CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream');
}

/**
 * Reads the built console into memory once, at start-up: a few hundred kilobytes that every page
 * load asks for, and a request can then name only what is in the map (no path reaches the disk).
 * Undefined when it was never built (no index.html), so that the service still starts.
 */
export async function loadConsoleAssets(dir: string = DEFAULT_CONSOLE_DIR): Promise<ConsoleAssets | undefined> {
  let index: Buffer;
  try {
    index = await readFile(path.join(dir, 'index.html'));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  const assetsDir = path.join(dir, 'assets');
  const entries = await readdir(assetsDir, { withFileTypes: true }).catch((error: unknown) => {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  });
  const assets = new Map<string, StaticFile>();
  for (const entry of entries) {
    if (entry.isFile()) assets.set(entry.name, consoleFile(entry.name, await readFile(path.join(assetsDir, entry.name))));
  }
  return { index: consoleFile('index.html', index), assets };
}
