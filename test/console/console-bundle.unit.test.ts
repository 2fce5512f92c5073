import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { DEFAULT_CONSOLE_DIR } from '../../src/http/console/assets.ts';

/**
 * The console's size budget: what every admin's browser downloads before the page can be used. A
 * dependency or a feature that makes it grow past the budget should be a decision, not a surprise.
 * Sizes are gzip at level 9 (what a compressing proxy or CDN in front of the service sends); 1 KB is
 * 1,000 bytes. The bench's `console` scenario measures the same files as the browser fetches them.
 */
const BUDGET = { js: 150_000, css: 30_000 };

const ASSETS_DIR = path.join(DEFAULT_CONSOLE_DIR, 'assets');
/** esbuild's content hashes (entry points) and the build's own (copied files such as the icon). */
const HASHED_NAME = /^[a-z0-9_-]+-(?:[A-Z0-9]{8}|[0-9a-f]{12})\.(?:js|css|svg|png|woff2)$/;

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

describe('the console bundle', () => {
  let html: string;
  /** Every built file under assets/ but the source maps, which a browser fetches only with its developer tools open. */
  let served: string[];

  before(async () => {
    assert.ok(existsSync(path.join(DEFAULT_CONSOLE_DIR, 'index.html')), 'dist/console is missing: run `npm run build` first');
    html = await readFile(path.join(DEFAULT_CONSOLE_DIR, 'index.html'), 'utf8');
    served = (await readdir(ASSETS_DIR)).filter((name) => !name.endsWith('.map')).sort();
  });

  /** The gzipped size of the served files of one kind, their raw sizes reported beside it. */
  async function gzippedSize(extension: '.js' | '.css', report: (line: string) => void): Promise<number> {
    const files = served.filter((name) => name.endsWith(extension));
    assert.ok(files.length > 0, `the build wrote no ${extension} file`);
    let raw = 0;
    let gzipped = 0;
    for (const name of files) {
      const bytes = await readFile(path.join(ASSETS_DIR, name));
      const compressed = gzipSync(bytes, { level: 9 }).length;
      report(`${name}: ${kb(bytes.length)}, gzip ${kb(compressed)}`);
      raw += bytes.length;
      gzipped += compressed;
    }
    report(`${extension} total: ${kb(raw)}, gzip ${kb(gzipped)}`);
    return gzipped;
  }

  test('index.html references exactly the built hashed files, and every placeholder was filled', () => {
    const referenced = [...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((match) => match[1]!);
    assert.ok(
      referenced.every((url) => url.startsWith('/console/assets/')),
      `index.html names only /console/assets/ files: ${referenced.join(', ')}`,
    );
    const names = referenced.map((url) => url.slice('/console/assets/'.length)).sort();
    assert.deepEqual(names, served, 'what index.html names is what the build wrote (no stale or missing file)');
    for (const name of names) assert.match(name, HASHED_NAME, `${name} carries its content hash`);
    assert.ok(names.some((name) => name.endsWith('.js')) && names.some((name) => name.endsWith('.css')), 'a script and a stylesheet');
    assert.doesNotMatch(html, /%[A-Z]+%/, 'no placeholder of src/console/index.html left');
  });

  test(`its JavaScript is under ${kb(BUDGET.js)} gzipped`, async (t) => {
    const size = await gzippedSize('.js', (line) => t.diagnostic(line));
    assert.ok(size < BUDGET.js, `the console's JavaScript is ${kb(size)} gzipped, over its budget of ${kb(BUDGET.js)}`);
  });

  test(`its CSS is under ${kb(BUDGET.css)} gzipped`, async (t) => {
    const size = await gzippedSize('.css', (line) => t.diagnostic(line));
    assert.ok(size < BUDGET.css, `the console's CSS is ${kb(size)} gzipped, over its budget of ${kb(BUDGET.css)}`);
  });
});
