import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { DEFAULT_CONSOLE_DIR } from '../../src/http/console/assets.ts';
import { PACKAGE_ROOT } from '../../src/package-root.ts';

/**
 * The console's size budget: what every admin's browser downloads before the page can be used. A
 * dependency or a feature that makes it grow past the budget should be a decision, not a surprise.
 * Sizes are gzip at level 9 (what a compressing proxy or CDN in front of the service sends); 1 KB is
 * 1,000 bytes. The bench's `console` scenario measures the same files as the browser fetches them.
 */
const BUDGET = { js: 80_000, css: 30_000 };
/**
 * What may be fetched later, when a view needs it (the log verifier), on top of the page's own: the
 * whole of the console's JavaScript stays under this.
 */
const ALL_JS_BUDGET = 150_000;

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

  /** The files index.html names (icon, stylesheet, script, preloads), by name under assets/. */
  const named = () => [...html.matchAll(/(?:src|href)="\/console\/assets\/([^"]*)"/g)].map((match) => match[1]!);

  /** The scripts a script imports, statically (`from "…"`) or when it runs (`import("…")`), by name. */
  async function importsOf(name: string): Promise<{ static: string[]; dynamic: string[] }> {
    const code = await readFile(path.join(ASSETS_DIR, name), 'utf8');
    const names = (pattern: RegExp) => [...code.matchAll(pattern)].map((match) => match[1]!);
    return {
      static: names(/\bfrom\s*"\/console\/assets\/([^"]+\.js)"/g),
      dynamic: names(/\bimport\(\s*"\/console\/assets\/([^"]+\.js)"\s*\)/g),
    };
  }

  /** Every script the page can come to run: those index.html names and, from them, everything imported. */
  async function reachableScripts(): Promise<Set<string>> {
    const reached = new Set<string>();
    const queue = named().filter((name) => name.endsWith('.js'));
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (reached.has(name)) continue;
      reached.add(name);
      const { static: statics, dynamic } = await importsOf(name);
      queue.push(...statics, ...dynamic);
    }
    return reached;
  }

  /** The gzipped size of the given files, their raw sizes reported beside it. */
  async function gzippedSize(files: string[], report: (line: string) => void): Promise<number> {
    assert.ok(files.length > 0, 'no file to measure');
    let raw = 0;
    let gzipped = 0;
    for (const name of files) {
      const bytes = await readFile(path.join(ASSETS_DIR, name));
      const compressed = gzipSync(bytes, { level: 9 }).length;
      report(`${name}: ${kb(bytes.length)}, gzip ${kb(compressed)}`);
      raw += bytes.length;
      gzipped += compressed;
    }
    report(`total: ${kb(raw)}, gzip ${kb(gzipped)}`);
    return gzipped;
  }

  test("index.html names the page's hashed files; every other file is a script the page imports; nothing is stale", async () => {
    const referenced = [...html.matchAll(/(?:src|href)="([^"]*)"/g)].map((match) => match[1]!);
    assert.ok(
      referenced.every((url) => url.startsWith('/console/assets/')),
      `index.html names only /console/assets/ files: ${referenced.join(', ')}`,
    );
    const names = named();
    for (const name of names) {
      assert.match(name, HASHED_NAME, `${name} carries its content hash`);
      assert.ok(served.includes(name), `index.html names ${name}, which the build did not write`);
    }
    assert.ok(names.some((name) => name.endsWith('.js')) && names.some((name) => name.endsWith('.css')), 'a script and a stylesheet');
    const reachable = await reachableScripts();
    for (const name of reachable) assert.ok(served.includes(name), `a script imports ${name}, which the build did not write`);
    const unexplained = served.filter((name) => !names.includes(name) && !reachable.has(name));
    assert.deepEqual(unexplained, [], 'every written file is named by index.html or imported by a script it names (no stale file)');
    for (const name of served) assert.match(name, HASHED_NAME, `${name} carries its content hash`);
    assert.doesNotMatch(html, /%[A-Z]+%/, 'no placeholder of src/console/index.html left');
  });

  test("what the page's scripts import before they run is preloaded beside them (no request waits for another)", async () => {
    const preloaded = [...html.matchAll(/<link rel="modulepreload" href="\/console\/assets\/([^"]+)"/g)].map((match) => match[1]!);
    const pageScripts = named().filter((name) => name.endsWith('.js'));
    for (const name of pageScripts) {
      for (const imported of (await importsOf(name)).static) {
        assert.ok(preloaded.includes(imported), `${name} imports ${imported}, which index.html does not preload`);
      }
    }
  });

  test('the log verifier is not part of the page: it is fetched when "Verify the log" is pressed', async () => {
    const pageScripts = named().filter((name) => name.endsWith('.js'));
    const lazy = [...(await reachableScripts())].filter((name) => !pageScripts.includes(name));
    assert.ok(lazy.length > 0, 'some script is imported only when used');
    const pageCode = (await Promise.all(pageScripts.map((name) => readFile(path.join(ASSETS_DIR, name), 'utf8')))).join('\n');
    // verify-export.ts's own words: were the verifier bundled into the page, they would be there.
    assert.doesNotMatch(pageCode, /the chain was rewritten up to here/, "the page's scripts hold no verifier");
    const lazyCode = (await Promise.all(lazy.map((name) => readFile(path.join(ASSETS_DIR, name), 'utf8')))).join('\n');
    assert.match(lazyCode, /the chain was rewritten up to here/, 'the verifier is in a script fetched when used');
  });

  test(`the page's JavaScript is under ${kb(BUDGET.js)} gzipped`, async (t) => {
    const size = await gzippedSize(
      named().filter((name) => name.endsWith('.js')),
      (line) => t.diagnostic(line),
    );
    assert.ok(size < BUDGET.js, `the console page's JavaScript is ${kb(size)} gzipped, over its budget of ${kb(BUDGET.js)}`);
  });

  test(`all of its JavaScript, with what views fetch when used, is under ${kb(ALL_JS_BUDGET)} gzipped`, async (t) => {
    const size = await gzippedSize(
      served.filter((name) => name.endsWith('.js')),
      (line) => t.diagnostic(line),
    );
    assert.ok(size < ALL_JS_BUDGET, `the console's JavaScript is ${kb(size)} gzipped, over its budget of ${kb(ALL_JS_BUDGET)}`);
  });

  test(`its CSS is under ${kb(BUDGET.css)} gzipped`, async (t) => {
    const size = await gzippedSize(
      served.filter((name) => name.endsWith('.css')),
      (line) => t.diagnostic(line),
    );
    assert.ok(size < BUDGET.css, `the console's CSS is ${kb(size)} gzipped, over its budget of ${kb(BUDGET.css)}`);
  });
});

/**
 * The API reference's own script (dist/api-reference/start.js: the Authorize dialog's wallet
 * sign-in and paste box), beside Swagger UI's prebuilt bundle: what this project adds to the page.
 */
const API_REFERENCE_SCRIPT_BUDGET = 10_000;

test(`the API reference's own script is under ${kb(API_REFERENCE_SCRIPT_BUDGET)} gzipped`, async (t) => {
  const file = path.join(PACKAGE_ROOT, 'dist', 'api-reference', 'start.js');
  assert.ok(existsSync(file), 'dist/api-reference/start.js is missing: run `npm run build` first');
  const bytes = await readFile(file);
  const size = gzipSync(bytes, { level: 9 }).length;
  t.diagnostic(`start.js: ${kb(bytes.length)}, gzip ${kb(size)}`);
  assert.ok(size < API_REFERENCE_SCRIPT_BUDGET, `start.js is ${kb(size)} gzipped, over its budget of ${kb(API_REFERENCE_SCRIPT_BUDGET)}`);
});
