import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { isAppError } from '../../src/errors/app-error.ts';
import { DiskBlobStorage } from '../../src/storage/disk-blob-storage.ts';
import { blobKey, resolveInside, safeSegment } from '../../src/storage/safe-path.ts';

const refusedAsPath = (error: unknown) => isAppError(error) && error.code === 'INVALID_PATH';

describe('safeSegment: the one gate for every path segment', () => {
  test('ordinary names pass unchanged, Unicode and inner dots and spaces included', () => {
    for (const name of ['a.txt', 'Report 2026.pdf', 'résumé', '日本語.md', 'a..b', 'x'.repeat(255), `${'é'.repeat(127)}a`, '%2e%2e', 'semi;colon', '~user']) {
      assert.equal(safeSegment(name, 'name'), name);
    }
  });

  test('refuses what could leave a directory, hide a file or confuse another system', () => {
    const cases: [string, RegExp][] = [
      ['', /empty/], ['.', /'\.'/], ['..', /'\.'/], ['.hidden', /start with '\.'/], ['a/b', /'\/'/], ['a\\b', /'\/'/],
      ['nul\u0000', /control/], ['tab\t', /control/], ['del\u007f', /control/], ['csi\u009b', /control/],
      ['  ', /whitespace/], ['name.', /end with/], ['name ', /end with/], ['x'.repeat(256), /255 bytes/],
      [`${'é'.repeat(128)}`, /255 bytes/], ['lone\ud800', /surrogate/],
    ];
    for (const [value, reason] of cases) {
      assert.throws(() => safeSegment(value, 'file name'), (error: unknown) => refusedAsPath(error) && reason.test((error as Error).message) && (error as Error).message.startsWith('file name'), JSON.stringify(value));
    }
  });

  test('blobKey and resolveInside check every segment again and stay strictly inside the root', () => {
    assert.equal(blobKey('files', 'chn_1', 'a'), 'files/chn_1/a');
    assert.throws(() => blobKey('files', '..', 'a'), refusedAsPath);
    assert.throws(() => blobKey(), refusedAsPath);
    assert.equal(resolveInside('/srv/root', 'a/b'), path.join('/srv/root', 'a', 'b'));
    for (const key of ['../etc/passwd', 'a/../../x', '/etc/passwd', 'a//b', '']) assert.throws(() => resolveInside('/srv/root', key), refusedAsPath, key);
  });
});

describe('traversal vectors against the disk storage', () => {
  test('every payload of deep_traversal.txt and directory_traversal.txt, as a segment and as a key, as written and decoded once', async (t) => {
    const sandbox = await mkdtemp(path.join(os.tmpdir(), 'traversal-storage-'));
    t.after(() => rm(sandbox, { recursive: true, force: true }));
    const root = path.join(sandbox, 'root');
    const storage = new DiskBlobStorage(root);
    const canary = path.join(sandbox, 'canary.txt');
    await writeFile(canary, 'canary');

    const payloads: string[] = [];
    for (const file of ['deep_traversal.txt', 'directory_traversal.txt']) {
      const text = await readFile(new URL(`../../../shared/vectors/traversal/${file}`, import.meta.url), 'utf8');
      for (const line of text.split('\n').filter((l) => l !== '')) {
        const payload = line.replaceAll('{FILE}', 'canary.txt');
        payloads.push(payload);
        try {
          payloads.push(decodeURIComponent(payload));
        } catch {
          // not valid percent-encoding: the literal form is tried already
        }
      }
    }
    let refused = 0;
    let stored = 0;
    for (const payload of payloads) {
      for (const key of [`files/chn_1/${payload}`, payload]) {
        try {
          await storage.put(key, Readable.from([Buffer.from('planted')]));
          stored++;
          assert.equal((await storage.get(key)) !== undefined, true);
        } catch (error) {
          assert.ok(refusedAsPath(error), `${JSON.stringify(key)}: ${String(error)}`);
          refused++;
        }
      }
    }
    assert.equal(await readFile(canary, 'utf8'), 'canary');
    assert.deepEqual((await readdir(sandbox)).sort(), ['canary.txt', 'root']);
    t.diagnostic(`${payloads.length} payloads × 2 placements: ${refused} refused, ${stored} stored inside the root`);
  });
});
