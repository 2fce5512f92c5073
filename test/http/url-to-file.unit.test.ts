import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from '../helpers/http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/**
 * A reader finds the file that serves a URL from the URL alone (the rule src/http/app.ts states):
 * `/api` and the parameters dropped, the segments left are folders under src/http and the last
 * one, without its extension, the file. Every path of the OpenAPI document is checked: its file
 * registers it, and no other file under src/http does.
 */

const HTTP_DIR = fileURLToPath(new URL('../../src/http/', import.meta.url));

/** The rule: /api/channels/{channelRef}/folders/{folderName}/files/{filename} → channels/folders/files.ts. */
function fileOf(documentPath: string): string {
  const segments = documentPath.split('/').filter((segment) => segment !== '' && !segment.startsWith('{'));
  if (segments[0] === 'api') segments.shift();
  const last = segments.pop()!.replace(/\.[a-z]+$/, '');
  return path.join(...segments, `${last}.ts`);
}

/** A route's registration of the path: `app.get(` and the like, then the path with Fastify's `:name` for OpenAPI's `{name}`. */
function registration(documentPath: string): RegExp {
  const fastifyPath = documentPath.replace(/\{([^}]+)\}/g, ':$1').replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`\\.(?:get|head|post|put|patch|delete|route)(?:<[^(]*>)?\\(\\s*'${fastifyPath}'`);
}

async function sourcesUnder(dir: string): Promise<Map<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts'));
  const sources = await Promise.all(
    files.map(async (entry): Promise<[string, string]> => {
      const file = path.join(entry.parentPath, entry.name);
      return [path.relative(dir, file), await readFile(file, 'utf8')];
    }),
  );
  return new Map(sources);
}

describe('URL → folder → file', () => {
  let svc: TestService;
  let paths: string[];
  let sources: Map<string, string>;

  before(async () => {
    svc = await startTestService('sqlite');
    paths = Object.keys((await request(svc.baseUrl, '/api/openapi.json')).json().paths);
    sources = await sourcesUnder(HTTP_DIR);
  });
  after(() => svc.close());

  test('the rule itself', () => {
    assert.equal(fileOf('/api/channels/{channelRef}/folders/{folderName}/files/{filename}'), path.join('channels', 'folders', 'files.ts'));
    assert.equal(
      fileOf('/api/channels/{channelRef}/folders/{folderName}/files/{filename}/restore'),
      path.join('channels', 'folders', 'files', 'restore.ts'),
    );
    assert.equal(fileOf('/api/openapi.json'), 'openapi.ts');
    assert.equal(fileOf('/healthz'), 'healthz.ts');
  });

  test('every path of the OpenAPI document is registered by the file its path names, and by no other', () => {
    assert.ok(paths.length >= 19, `the document lists ${paths.length} paths`);
    for (const documentPath of paths) {
      const expected = fileOf(documentPath);
      const pattern = registration(documentPath);
      const registering = [...sources].filter(([, source]) => pattern.test(source)).map(([file]) => file);
      assert.deepEqual(
        registering,
        [expected],
        `${documentPath}: registered in ${registering.join(', ') || 'no file'}, not src/http/${expected}`,
      );
    }
  });
});
