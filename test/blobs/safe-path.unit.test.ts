import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BlobStorage } from '../../src/blobs/blob-storage.ts';
import { DiskBlobStorage } from '../../src/blobs/disk-blob-storage.ts';
import { blobKey, resolveInside, safeSegment } from '../../src/blobs/safe-path.ts';
import { isAppError } from '../../src/errors/app-error.ts';
import { bodyOf, readAll } from './blob-storage.contract.ts';

function isInvalidPath(error: unknown): boolean {
  return isAppError(error) && error.code === 'INVALID_PATH' && error.status === 400;
}

describe('safeSegment: the one gate for every path segment', () => {
  test('ordinary names pass and come back unchanged: Unicode, inner dots and spaces, look-alikes of encodings', () => {
    const names = [
      'a',
      'a.txt',
      'Report 2026.pdf',
      'résumé',
      '日本語.md',
      '😀',
      'a..b',
      'a.b.c',
      '-',
      '_',
      '~user',
      'semi;colon',
      'x'.repeat(255),
      `${'é'.repeat(127)}a`,
      '%2e%2e',
      '%252e%252e',
      'a..%2f',
      'a%2fb',
      '%00',
      '%5c',
      '…',
      '․․',
      '%c0%ae%c0%ae',
      'trailing%20',
      // The zero-width non-joiner and joiner between visible characters: Persian, Devanagari, emoji.
      'می\u200Cخواهم.txt',
      'क्\u200Dष.txt',
      '\u{1F469}\u200D\u{1F4BB} notes.md',
      '\u{1F3F3}\uFE0F\u200D\u{1F308}.png',
      'a\u200Cb',
      '1\u200D2',
    ];
    for (const name of names) assert.equal(safeSegment(name, 'name'), name, JSON.stringify(name));
  });

  test('refuses, with INVALID_PATH naming the value and the rule, what could leave a folder, hide a file or confuse another system', () => {
    const cases: [string, RegExp][] = [
      ['', /empty/],
      ['.', /'\.' or '\.\.'/],
      ['..', /'\.' or '\.\.'/],
      ['...', /start with '\.'/],
      ['.hidden', /start with '\.'/],
      ['.wa-tmp-0123', /start with '\.'/],
      ['/', /'\/' or '\\'/],
      ['a/b', /'\/' or '\\'/],
      ['../a', /'\/' or '\\'/],
      ['\\', /'\/' or '\\'/],
      ['a\\b', /'\/' or '\\'/],
      ['..\\..', /'\/' or '\\'/],
      ['nul\u0000', /control/],
      ['\u0000', /control/],
      ['a\u0001b', /control/],
      ['tab\t', /control/],
      ['line\nfeed', /control/],
      ['carriage\rreturn', /control/],
      ['esc\u001b[31m', /control/],
      ['del\u007f', /control/],
      ['nel\u0085', /control/],
      ['csi\u009b', /control/],
      [' ', /whitespace/],
      ['   ', /whitespace/],
      ['\u00a0', /whitespace/],
      ['\u3000', /whitespace/],
      ['name.', /end with/],
      ['name..', /end with/],
      ['name ', /end with/],
      ['name\u00a0', /end with/],
      ['name\u2028', /end with/],
      ['x'.repeat(256), /255 bytes/],
      ['é'.repeat(128), /255 bytes/],
      [`${'😀'.repeat(63)}xxxx`, /255 bytes/],
      // Format characters (\p{Cf}): shown as nothing, they reorder or disguise a name.
      ['invoice\u202Egnp.exe', /format characters such as U\+202E \(right-to-left override\)/],
      ...['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'].map(
        (bidi): [string, RegExp] => [`report${bidi}fdp.exe`, /format characters/],
      ),
      ...['\u200B', '\u00AD', '\u2060', '\uFEFF', '\u180E', '\u0600', '\u{E0001}', '\u{E0067}', '\u{1D173}'].map(
        (invisible): [string, RegExp] => [`a${invisible}b.txt`, /format characters/],
      ),
      ['\uFEFFbom.txt', /format characters/],
      // A joiner or non-joiner anywhere but between two visible characters only hides.
      ['\u200Dstart.txt', /format characters/],
      ['end.txt\u200C', /format characters/],
      ['a\u200D.txt', /format characters/],
      ['a.\u200Dtxt', /format characters/],
      ['a \u200Cb', /format characters/],
      ['a\u200D\u200Db', /format characters/],
      ['a\u200D\u202Eb', /format characters/],
      ['\u200C', /format characters/],
      ['lone\ud800', /surrogate/],
      ['\udc00tail', /surrogate/],
      ['\ud83d', /surrogate/],
    ];
    for (const [value, reason] of cases) {
      assert.throws(
        () => safeSegment(value, 'file name'),
        (error: unknown) =>
          isInvalidPath(error) && reason.test((error as Error).message) && (error as Error).message.startsWith('file name '),
        JSON.stringify(value),
      );
    }
  });

  test('a value that is not a string is refused, not coerced', () => {
    for (const value of [undefined, null, 0, ['a'], { toString: () => 'a' }]) {
      assert.throws(() => safeSegment(value as unknown as string, 'name'), isInvalidPath, String(value));
    }
  });
});

describe('blobKey', () => {
  test('joins checked segments with "/"', () => {
    assert.equal(blobKey('files', 'chn_1', 'docs', 'a.txt'), 'files/chn_1/docs/a.txt');
    assert.equal(blobKey('only'), 'only');
    assert.equal(blobKey('%2e%2e', 'x'), '%2e%2e/x', 'never decoded');
  });

  test('refuses no segments at all, and any unsafe segment wherever it stands', () => {
    assert.throws(() => blobKey(), isInvalidPath);
    for (const bad of ['..', '', 'a/b', '.hidden', 'a\\b', 'a\0', 'a.', 'a\u202Eb']) {
      assert.throws(() => blobKey(bad, 'x', 'y'), isInvalidPath, `first ${JSON.stringify(bad)}`);
      assert.throws(() => blobKey('x', bad, 'y'), isInvalidPath, `middle ${JSON.stringify(bad)}`);
      assert.throws(() => blobKey('x', 'y', bad), isInvalidPath, `last ${JSON.stringify(bad)}`);
    }
  });
});

describe('resolveInside', () => {
  const root = path.resolve(os.tmpdir(), 'resolve-inside-root');

  test('maps a key to <root>/<segments> literally, below a normalised root', () => {
    assert.equal(resolveInside(root, 'a/b'), path.join(root, 'a', 'b'));
    assert.equal(resolveInside(`${root}${path.sep}`, 'a'), path.join(root, 'a'));
    assert.equal(resolveInside(path.join(root, 'x', '..'), 'a'), path.join(root, 'a'));
    assert.equal(resolveInside('relative-root', 'a'), path.join(process.cwd(), 'relative-root', 'a'));
    assert.equal(resolveInside(root, '%2e%2e/%2f'), path.join(root, '%2e%2e', '%2f'));
  });

  test('refuses keys that are empty, absolute, traversing, or with any unsafe segment', () => {
    const keys = [
      '',
      '/',
      '/etc/passwd',
      '../etc/passwd',
      'a/../../x',
      'a/..',
      'a/.',
      './a',
      'a//b',
      'a/',
      '.hidden/a',
      'a\\..\\..\\b',
      'a/b\0',
      'a/b.',
    ];
    for (const key of keys) assert.throws(() => resolveInside(root, key), isInvalidPath, JSON.stringify(key));
    assert.throws(() => resolveInside(root, undefined as unknown as string), isInvalidPath);
  });

  test('over every short string of a hostile alphabet: accepted exactly when every segment is safe, and then strictly inside the root, segment for segment', () => {
    const alphabet = ['a', '.', '/', '\\', '\0', ' ', '%', 'é', '\ud800', '\n'];
    let accepted = 0;
    let checked = 0;
    const visit = (key: string) => {
      checked++;
      const segmentsSafe = key.split('/').every((segment) => {
        try {
          safeSegment(segment, 'segment');
          return true;
        } catch (error) {
          assert.ok(isInvalidPath(error));
          return false;
        }
      });
      let resolved: string | undefined;
      try {
        resolved = resolveInside(root, key);
      } catch (error) {
        assert.ok(isInvalidPath(error), JSON.stringify(key));
      }
      assert.equal(resolved !== undefined, segmentsSafe, JSON.stringify(key));
      if (resolved === undefined) return;
      accepted++;
      const relative = path.relative(root, resolved);
      assert.ok(relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative), JSON.stringify(key));
      assert.deepEqual(relative.split(path.sep), key.split('/'), JSON.stringify(key));
    };
    const extend = (prefix: string, depth: number) => {
      if (depth === 0) return;
      for (const character of alphabet) {
        visit(prefix + character);
        extend(prefix + character, depth - 1);
      }
    };
    extend('', 4);
    assert.equal(checked, 10 + 100 + 1000 + 10_000);
    assert.ok(accepted > 100, `some keys are accepted (${accepted})`);
  });
});

// ---------------------------------------------------------------------------------------------

const VECTORS = new URL('../fixtures/vectors/traversal/', import.meta.url);
const VECTOR_FILES = ['deep_traversal.txt', 'directory_traversal.txt'];
const CANARY_NAME = 'canary.txt';
const CANARY_TEXT = `canary ${Math.random()}: never to be read or written through the storage`;

interface Payload {
  line: number;
  /** As written in the file, with {FILE} naming the canary. */
  literal: string;
  /** decodeURIComponent of it once, when that is valid and differs. */
  decoded: string | undefined;
}

async function payloadsOf(file: string): Promise<Payload[]> {
  const text = await readFile(new URL(file, VECTORS), 'utf8');
  return text
    .split('\n')
    .map((line, index) => ({ line: index + 1, text: line }))
    .filter(({ text }) => text !== '')
    .map(({ line, text }) => {
      const literal = text.replaceAll('{FILE}', CANARY_NAME);
      let decoded: string | undefined;
      try {
        decoded = decodeURIComponent(literal);
      } catch {
        decoded = undefined; // malformed escapes: the router would have refused the request already
      }
      return { line, literal, decoded: decoded === literal ? undefined : decoded };
    });
}

/**
 * The payloads are taken literally: the HTTP router decodes a path once and the storage must not
 * decode again, so a payload must be refused (INVALID_PATH) or stored at exactly <root>/<key>.
 * The root sits deeper in the sandbox than any payload can climb, with a canary beside it and
 * beside every folder above it, so that a traversal which got through would hit a canary or
 * leave a file in the sandbox (we may run as root: nothing may reach /etc).
 */
describe('traversal vectors against DiskBlobStorage', () => {
  let sandbox: string;
  let root: string;
  let storage: BlobStorage;
  const canaries = new Map<string, number>(); // path → mtimeMs
  const nestDirectories: string[] = [];
  const stored = new Map<string, string>(); // key → content
  const attempted = new Set<string>();
  const loaded = new Map<string, Payload[]>();

  before(async () => {
    for (const file of VECTOR_FILES) loaded.set(file, await payloadsOf(file));
    const everyKey = [...loaded.values()].flat().flatMap(({ literal, decoded }) => [literal, decoded ?? '']);
    const deepest = Math.max(...everyKey.map((key) => `files/chn_1/${key}`.split('/').length));

    sandbox = await mkdtemp(path.join(os.tmpdir(), 'traversal-storage-'));
    let level = sandbox;
    for (let depth = 0; depth <= deepest; depth++) {
      const canary = path.join(level, CANARY_NAME);
      await writeFile(canary, CANARY_TEXT);
      canaries.set(canary, (await stat(canary)).mtimeMs);
      level = path.join(level, `up${depth}`);
      await mkdir(level);
      nestDirectories.push(level);
    }
    root = path.join(level, 'root');
    storage = new DiskBlobStorage(root);
  });
  after(() => rm(sandbox, { recursive: true, force: true }));

  test('the vector files are there and hold payloads', () => {
    for (const file of VECTOR_FILES) {
      const payloads = loaded.get(file) ?? [];
      assert.ok(payloads.length > 100, `${file}: ${payloads.length} payloads`);
      assert.ok(
        payloads.some(({ literal }) => literal.includes('../')),
        `${file} has plain traversals`,
      );
      assert.ok(
        payloads.some(({ decoded }) => decoded !== undefined),
        `${file} has encoded payloads`,
      );
    }
  });

  /**
   * One key through the storage. Every method goes through the same gate, so get and put must
   * agree on refusing; an accepted key must read back as what was put, from exactly <root>/<key>.
   */
  async function attempt(key: string): Promise<'refused' | 'stored'> {
    const expected = stored.get(key);
    let readRefused = false;
    try {
      const bytes = await readAll(await storage.get(key));
      assert.equal(bytes?.toString('utf8'), expected, 'get returned bytes it was never given');
    } catch (error) {
      if (!isInvalidPath(error)) throw error;
      readRefused = true;
    }
    const content = `stored as ${JSON.stringify(key)}`;
    try {
      await storage.put(key, bodyOf(content));
    } catch (error) {
      if (!isInvalidPath(error)) throw error;
      assert.ok(readRefused, 'put refused a key that get accepted');
      await assert.rejects(storage.stat(key), isInvalidPath, 'stat accepted a key that put refused');
      await assert.rejects(storage.delete(key), isInvalidPath, 'delete accepted a key that put refused');
      return 'refused';
    }
    assert.ok(!readRefused, 'get refused a key that put accepted');
    stored.set(key, content);
    assert.equal(await readFile(path.join(root, ...key.split('/')), 'utf8'), content, 'not at <root>/<key>');
    assert.equal((await readAll(await storage.get(key)))?.toString('utf8'), content);
    assert.equal((await storage.stat(key))?.size, Buffer.byteLength(content));
    return 'stored';
  }

  for (const file of VECTOR_FILES) {
    for (const form of ['literal', 'decoded once'] as const) {
      test(`${file}, ${form}: as a key segment and as a whole key, refused with INVALID_PATH or stored strictly inside the root`, async (t) => {
        const failures: string[] = [];
        const counts = { cases: 0, refused: 0, stored: 0, repeated: 0 };
        const cases: { label: string; key: string; mustBeStored: boolean }[] = [];
        for (const payload of loaded.get(file) ?? []) {
          const value = form === 'literal' ? payload.literal : payload.decoded;
          if (value === undefined) continue;
          const where = `line ${payload.line}`;
          // As a segment, the way callers build keys: blobKey refuses it, or the storage must take it.
          let key: string | undefined;
          try {
            key = blobKey('files', 'chn_1', value);
          } catch (error) {
            if (!isInvalidPath(error)) failures.push(`${where} blobKey: ${String(error)}`);
          }
          if (key !== undefined) cases.push({ label: `${where} segment`, key, mustBeStored: true });
          // A key spliced together without blobKey (defence in depth).
          else cases.push({ label: `${where} spliced segment`, key: `files/chn_1/${value}`, mustBeStored: false });
          cases.push({ label: `${where} whole key`, key: value, mustBeStored: false });
        }
        // Many payloads repeat once {FILE} is filled in; each distinct key is tried once, and a
        // few at a time (distinct keys, so the tries cannot disturb each other's reads).
        const queue = cases.filter(({ key }) => {
          if (!attempted.has(key)) {
            attempted.add(key);
            return true;
          }
          counts.repeated++;
          return false;
        });
        const worker = async () => {
          for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
            const { label, key, mustBeStored } = next;
            counts.cases++;
            try {
              const outcome = await attempt(key);
              counts[outcome]++;
              if (mustBeStored && outcome !== 'stored')
                failures.push(`${label} ${JSON.stringify(key)}: blobKey accepted it, the storage refused it`);
            } catch (error) {
              failures.push(`${label} ${JSON.stringify(key)}: ${error instanceof Error ? error.message : String(error)}`);
            }
          }
        };
        await Promise.all(Array.from({ length: 8 }, worker));
        t.diagnostic(
          `${counts.cases} distinct keys (${counts.repeated} repeats skipped): ${counts.refused} refused, ${counts.stored} stored inside the root`,
        );
        assert.deepEqual(failures, []);
        assert.ok(counts.cases > 0);
      });
    }
  }

  test('afterwards every canary is unchanged, nothing exists outside the root but the canaries, and each stored key is exactly one file at <root>/<key>', async () => {
    for (const [canary, mtimeMs] of canaries) {
      assert.equal(await readFile(canary, 'utf8'), CANARY_TEXT, canary);
      assert.equal((await stat(canary)).mtimeMs, mtimeMs, canary);
    }
    const entries = await readdir(sandbox, { recursive: true, withFileTypes: true });
    const outsideRoot = entries
      .map((entry) => ({ entry, full: path.join(entry.parentPath, entry.name) }))
      .filter(({ full }) => full !== root && !full.startsWith(root + path.sep));
    const expectedOutside = [...canaries.keys(), ...nestDirectories].sort();
    assert.deepEqual(outsideRoot.map(({ full }) => full).sort(), expectedOutside);
    for (const { entry, full } of outsideRoot) assert.equal(entry.isDirectory(), nestDirectories.includes(full), full);

    const inside = entries
      .filter((entry) => !entry.isDirectory())
      .map((entry) => path.join(entry.parentPath, entry.name))
      .filter((full) => full.startsWith(root + path.sep));
    const keysOnDisk = inside.map((full) => path.relative(root, full).split(path.sep).join('/')).sort();
    assert.deepEqual(keysOnDisk, [...stored.keys()].sort(), 'one file per stored key, named by the key itself');
    for (const full of inside) {
      const key = path.relative(root, full).split(path.sep).join('/');
      assert.equal(await readFile(full, 'utf8'), stored.get(key), key);
    }
    assert.ok(stored.size > 0, 'some payloads are harmless names and were stored');
  });
});
