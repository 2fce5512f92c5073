import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, nextSecond } from '../helpers/files.ts';
import { seedTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { S3RVER_LONGEST_SEGMENT_BYTES } from '../helpers/s3-server.ts';
import { type ServiceProcess, spawnService, waitUntilReady } from '../helpers/service-process.ts';
import { createStorage, freePort, type Storage, storageEnv } from '../helpers/test-service.ts';
import { testSize } from '../helpers/test-size.ts';
import { signIn } from '../helpers/wallets.ts';

const VECTORS = new URL('../fixtures/vectors/traversal/', import.meta.url);
/** On SQLite, the curated lists go to every route at full size, and to every parameter as on the other setups in `npm test` (see corpora). */
const CURATED_ON_SQLITE: Reach = testSize('every parameter', 'every route');
/** One dotdotpwn line in this many is sent (see corpora): 1 in 5 in `npm test`, all of them under `npm run soak`. */
const DOTDOTPWN_STRIDE = testSize(5, 1);
const CANARY_NAME = 'canary.txt';
const CANARY_TEXT = `canary ${Math.random()} must never be served`;

async function lines(file: string): Promise<string[]> {
  const text = await readFile(new URL(file, VECTORS), 'utf8');
  // {FILE} becomes the canary: five levels up from a live file is exactly where it lies.
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replaceAll('{FILE}', CANARY_NAME));
}

/**
 * Where each payload of a corpus goes: 'every route' in every parameter; 'every parameter' through one
 * of its routes in turn; 'path first': every path segment and the contract's backupTimestamp (each
 * through one of its routes in turn) and one of the other query parameters in turn.
 */
type Reach = 'every route' | 'every parameter' | 'path first';

/** Every payload of a corpus, the forms it is sent in, and where each goes. */
interface Corpus {
  name: string;
  payloads: string[];
  forms: (keyof typeof FORMS)[];
  reach: Reach;
}

/**
 * The curated lists in both forms on every setup: on SQLite to every route in every parameter, on
 * the others (which differ only below the gate: the database's and the store's handling of what
 * passes it) to every parameter through one of its routes in turn. dotdotpwn's 21,144 generated
 * lines (which carry their own encodings: %2e, %252e, overlong UTF-8, %u2215, %00 …) as written, on
 * SQLite, to every path segment and the contract's backupTimestamp, and to one other query parameter
 * in turn (each gets about 2,300 of them). The encodings are the HTTP and path layers' business, and a
 * parameter's own gate sees them whatever the route. The other query values (from, to, fromAt, toAt,
 * at, dryRun, a scope's backupTimestamp) pass a strict format check before anything else, and the
 * curated lists reach each of them on every route. Sending each line to all 36 routes took 330 s of
 * the suite, and to every parameter 150 s, for no gate that these do not reach.
 *
 * Those are the full sizes (`npm run soak`, test/helpers/test-size.ts), about 250,000 requests. In
 * `npm test` the curated lists go on SQLite, as on the other setups, to every parameter through one
 * of its routes in turn (every payload still reaches every parameter's gate, in both forms), and
 * dotdotpwn's lines are sampled: one in DOTDOTPWN_STRIDE, from a random first line (named in the
 * output), so that successive runs cover the whole corpus. The file holds each of its 881 encodings as a run of 24 lines (6
 * depths × 4 targets: passwd, issue, boot.ini, hosts); a stride prime to 24 sends every encoding
 * in each run, 4 or 5 of its lines, every target about as often (a stride of 4 would send one).
 */
async function corpora(setup: string): Promise<Corpus[]> {
  const curated: Corpus = {
    name: 'deep_traversal + directory_traversal',
    payloads: [...(await lines('deep_traversal.txt')), ...(await lines('directory_traversal.txt'))],
    forms: ['as written', 'escaped'],
    reach: setup === 'sqlite' ? CURATED_ON_SQLITE : 'every parameter',
  };
  if (setup !== 'sqlite') return [curated];
  const generated = await lines('dotdotpwn.txt');
  const first = Math.floor(Math.random() * DOTDOTPWN_STRIDE);
  const payloads = generated.filter((_, line) => line % DOTDOTPWN_STRIDE === first);
  const name = DOTDOTPWN_STRIDE === 1 ? 'dotdotpwn' : `dotdotpwn (every ${DOTDOTPWN_STRIDE}th line from line ${first + 1})`;
  return [curated, { name, payloads, forms: ['as written'], reach: 'path first' }];
}

/** A parameter a payload stands in (a path segment or a query value), and the requests of every route that takes it. */
type Route = [parameter: string, requests: [method: string, urlPath: string][]];

/** Every route of the file endpoints with the payload `p` in one parameter, grouped by that parameter. */
function routesFor(channel: string, timestamp: string, p: string): Route[] {
  const file = (c: string, f: string, n: string) => `/api/channels/${c}/folders/${f}/files/${n}`;
  const fileRequests = (c: string, f: string, n: string): [string, string][] => [
    ['PUT', file(c, f, n)],
    ['GET', file(c, f, n)],
    ['GET', `${file(c, f, n)}/versions`],
    ['POST', `${file(c, f, n)}/restore`],
    ['DELETE', file(c, f, n)],
  ];
  const folderRestore = (c: string, f: string) => `/api/channels/${c}/folders/${f}/restore`;
  return [
    ['channel segment', fileRequests(p, 'docs', 'a.txt')],
    ['folder segment', fileRequests(channel, p, 'a.txt')],
    ['filename segment', fileRequests(channel, 'docs', p)],
    ['channel segment', [['GET', `/api/channels/${p}/folders/docs/files`]]],
    ['folder segment', [['GET', `/api/channels/${channel}/folders/${p}/files`]]],
    ['backupTimestamp of a file', [['POST', `${file(channel, 'docs', 'a.txt')}/restore?backupTimestamp=${p}`]]],
    // The deleted list names a folder in its path; the changes name backups and a folder in the query.
    ['channel segment', [['GET', `/api/channels/${p}/folders/docs/deleted`]]],
    ['folder segment', [['GET', `/api/channels/${channel}/folders/${p}/deleted`]]],
    ['channel segment', [['GET', `/api/channels/${p}/changes?from=${timestamp}`]]],
    ['from', [['GET', `/api/channels/${channel}/changes?from=${p}`]]],
    ['to', [['GET', `/api/channels/${channel}/changes?from=${timestamp}&to=${p}`]]],
    ['folder of changes', [['GET', `/api/channels/${channel}/changes?from=${timestamp}&folder=${p}`]]],
    ['fromAt', [['GET', `/api/channels/${channel}/changes?fromAt=${p}`]]],
    ['toAt', [['GET', `/api/channels/${channel}/changes?from=${timestamp}&toAt=${p}`]]],
    // Folder and channel restores name a channel and a folder in the path, a backup or an instant in the query.
    ['channel segment', [['POST', `${folderRestore(p, 'docs')}?backupTimestamp=${timestamp}`]]],
    [
      'folder segment',
      [
        ['POST', `${folderRestore(channel, p)}?backupTimestamp=${timestamp}`],
        ['POST', `${folderRestore(channel, p)}?backupTimestamp=${timestamp}&delete=true`],
      ],
    ],
    ['backupTimestamp of a scope', [['POST', `${folderRestore(channel, 'docs')}?backupTimestamp=${p}&dryRun=true`]]],
    ['at of a scope', [['POST', `${folderRestore(channel, 'docs')}?at=${p}&dryRun=true`]]],
    ['channel segment', [['POST', `/api/channels/${p}/restore?backupTimestamp=${timestamp}`]]],
    ['backupTimestamp of a scope', [['POST', `/api/channels/${channel}/restore?backupTimestamp=${p}&dryRun=true`]]],
    ['at of a scope', [['POST', `/api/channels/${channel}/restore?at=${p}&dryRun=true`]]],
    ['dryRun', [['POST', `/api/channels/${channel}/restore?backupTimestamp=${timestamp}&dryRun=${p}`]]],
    ['at of a file', [['POST', `${file(channel, 'docs', 'a.txt')}/restore?at=${p}`]]],
  ];
}

/** The parameters that a 'path first' corpus reaches with every payload: the path segments and the contract's query. */
const isPathFirst = (parameter: string) => parameter.endsWith(' segment') || parameter === 'backupTimestamp of a file';

/** The requests of `routes` by the parameter the payload stands in. */
function groupByParameter(routes: Route[]): Map<string, [string, string][]> {
  const groups = new Map<string, [string, string][]>();
  for (const [parameter, requests] of routes) groups.set(parameter, [...(groups.get(parameter) ?? []), ...requests]);
  return groups;
}

/**
 * Two ways a payload reaches a segment: as written (its %-escapes decoded once by the server;
 * bytes Node's client cannot send raw are escaped), and fully escaped, so the server sees it literally.
 */
const asWritten = (payload: string) => payload.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
const FORMS = { 'as written': asWritten, escaped: encodeURIComponent } satisfies Record<string, (payload: string) => string>;
/** What /etc/passwd, win.ini and boot.ini hold: the targets of the generated payloads. */
const SYSTEM_FILE_CONTENT = /root:.*:0:0:|\[fonts\]|\[boot loader\]/;

/**
 * s3rver keeps objects as files and cannot store a key segment over S3RVER_LONGEST_SEGMENT_BYTES
 * (S3 takes them): it writes the object's file, fails on its metadata file, and the half-written
 * object breaks its listings. True when a segment of the path, decoded as the server decodes it,
 * is that long.
 */
function beyondS3rver(urlPath: string): boolean {
  return urlPath
    .split('?')[0]!
    .split('/')
    .some((segment) => {
      try {
        return Buffer.byteLength(decodeURIComponent(segment)) > S3RVER_LONGEST_SEGMENT_BYTES;
      } catch {
        return false;
      }
    });
}

async function treeOf(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(directory, path.join(e.parentPath, e.name)));
}

// PostgreSQL on disk adds nothing that sqlite (the same disk paths) and postgres+s3 (the same database
// refusing what it cannot store) do not cover between them: it runs in the soak only (20 s of the suite).
for (const setup of testSize(
  FILE_SETUPS.filter((s) => s !== 'postgres'),
  FILE_SETUPS,
)) {
  describe(`traversal payloads in every segment of every file endpoint (${setup})`, () => {
    let storage: Storage;
    let sandbox: string;
    let canary: string;
    let canaryMtime: number;
    let service: ServiceProcess;
    let baseUrl: string;
    let fixture: TenantFixture;
    let client: FilesClient;
    let timestamp: string;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

    before(async () => {
      storage = await createStorage(setup);
      sandbox = storage.dataDir;
      canary = path.join(sandbox, CANARY_NAME);
      await writeFile(canary, CANARY_TEXT);
      canaryMtime = (await stat(canary)).mtimeMs;
      // On S3 the bucket's root is five levels above a live file: a canary object there too.
      await storage.s3?.putText(CANARY_NAME, CANARY_TEXT);
      const dataDir = path.join(sandbox, 'data');
      await mkdir(dataDir);
      const port = await freePort();
      baseUrl = `http://127.0.0.1:${port}`;
      const env = { ...storageEnv(storage, dataDir), HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'production' }; // production: no demo seed
      fixture = await seedTenantFixture({ dataDir, databaseUrl: storage.databaseUrl }, 'Traversal');
      // The service in a process of its own, as deployed: it and this client each get a core.
      service = spawnService(env);
      await waitUntilReady(service, baseUrl);
      client = new FilesClient(baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, loadConfig(env).auth.domains[0]!)) });
      assert.equal((await client.put('docs', 'a.txt', 'inside')).status, 201);
      await nextSecond();
      timestamp = (await client.backup()).json().timestamp;
    });
    after(async () => {
      agent.destroy();
      service.child.kill('SIGTERM');
      await service.exited;
      await storage.drop();
    });

    function send(method: string, urlPath: string): Promise<{ status: number; body: string; type: string | undefined }> {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string> = { ...client.auth };
        if (method === 'PUT') headers['Content-Type'] = 'text/plain';
        if (method === 'POST') headers['Content-Type'] = 'application/json';
        const req = http.request({ host: '127.0.0.1', port: new URL(baseUrl).port, method, path: urlPath, headers, agent }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body, type: res.headers['content-type'] }));
        });
        req.on('error', reject);
        req.end(method === 'PUT' ? 'planted' : undefined);
      });
    }

    test('0 escapes, 0 server errors, every refusal in the one error format, the canary outside DATA_DIR never read or changed', async (t) => {
      const sets = await corpora(setup);
      const channel = fixture.channel.id;
      const statuses = new Map<number, number>();
      let requests = 0;
      const jobs: [string, string][] = [];
      const parameters = new Set(routesFor(channel, timestamp, 'x').map(([parameter]) => parameter));
      for (const corpus of sets) {
        // Payloads of this corpus per parameter, where it does not go to every route.
        const reachedBy = new Map<string, number>();
        for (const [form, formName] of corpus.forms.entries())
          corpus.payloads.forEach((raw, payload) => {
            // The second form of a payload takes the next route of each parameter.
            const i = payload + form;
            const routes = routesFor(channel, timestamp, FORMS[formName](raw));
            if (corpus.reach === 'every route') {
              jobs.push(...routes.flatMap(([, requests]) => requests));
              return;
            }
            // One route of each parameter, in turn; 'path first': of the query parameters past the
            // contract's, one in turn.
            const groups = [...groupByParameter(routes)];
            const others = groups.filter(([parameter]) => !isPathFirst(parameter));
            const reached =
              corpus.reach === 'every parameter'
                ? groups
                : [...groups.filter(([parameter]) => isPathFirst(parameter)), others[i % others.length]!];
            for (const [parameter, requests] of reached) {
              jobs.push(requests[i % requests.length]!);
              reachedBy.set(parameter, (reachedBy.get(parameter) ?? 0) + 1);
            }
          });
        if (corpus.reach !== 'every route') {
          assert.deepEqual([...reachedBy.keys()].sort(), [...parameters].sort(), `${corpus.name} reaches every parameter`);
          const total = corpus.payloads.length * corpus.forms.length;
          for (const [parameter, count] of reachedBy)
            if (corpus.reach === 'every parameter' || isPathFirst(parameter))
              assert.equal(count, total, `${corpus.name}: every payload in ${parameter}`);
          t.diagnostic(`${corpus.name}: payloads per parameter ${JSON.stringify(Object.fromEntries(reachedBy))}`);
        }
      }
      // Names s3rver cannot store (see beyondS3rver) would only corrupt the test server's bucket.
      const leftOut = storage.s3 ? jobs.filter(([, urlPath]) => beyondS3rver(urlPath)).length : 0;
      if (storage.s3) jobs.splice(0, jobs.length, ...jobs.filter(([, urlPath]) => !beyondS3rver(urlPath)));
      let next = 0;
      const failures: string[] = [];
      const worker = async () => {
        while (next < jobs.length) {
          const [method, urlPath] = jobs[next++]!;
          const response = await send(method, urlPath);
          requests++;
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          if (response.status >= 500) failures.push(`${method} ${urlPath} → ${response.status} ${response.body.slice(0, 200)}`);
          if (response.status >= 400 && response.type !== 'application/problem+json')
            failures.push(`${method} ${urlPath} → ${response.status} as ${response.type}`);
          if (response.body.includes(CANARY_TEXT)) failures.push(`${method} ${urlPath} served the canary`);
          if (SYSTEM_FILE_CONTENT.test(response.body)) failures.push(`${method} ${urlPath} served a system file`);
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      assert.deepEqual(failures, []);

      assert.equal(await readFile(canary, 'utf8'), CANARY_TEXT);
      assert.equal((await stat(canary)).mtimeMs, canaryMtime);
      // Beside DATA_DIR: only the canary. Inside storage: only this channel's trees.
      assert.deepEqual((await readdir(sandbox)).sort(), ['canary.txt', 'data']);
      const inChannelTrees = (key: string, separator: string) =>
        ['objects', 'files', 'versions', 'backups'].some((top) => key.startsWith(`${top}${separator}${channel}${separator}`));
      if (storage.s3) {
        const canaryPath = `/${storage.s3.bucket}/${CANARY_NAME}`;
        assert.deepEqual(
          storage.s3.requests.filter((r) => r.path === canaryPath).map((r) => r.method),
          ['PUT'],
          'the service never asked for the canary object: only the test put it',
        );
        assert.deepEqual(
          (await storage.s3.keys()).filter((key) => !inChannelTrees(key, '/')),
          [CANARY_NAME],
        );
        assert.equal((await storage.s3.readText(CANARY_NAME)).text, CANARY_TEXT, 'the canary object is unchanged');
      } else {
        const stored = await treeOf(path.join(sandbox, 'data', 'storage'));
        assert.deepEqual(
          stored.filter((f) => !inChannelTrees(f, path.sep)),
          [],
        );
      }
      t.diagnostic(
        `${sets.map((c) => `${c.name}: ${c.payloads.length} payloads × ${c.forms.length} form(s)`).join('; ')} — ${requests} requests; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
      );
      if (storage.s3)
        t.diagnostic(
          `${leftOut} requests with a segment over s3rver's ${S3RVER_LONGEST_SEGMENT_BYTES}-byte limit left out here (sent on disk)`,
        );
      assert.equal(requests, jobs.length);
      // The restore query with a good timestamp still works after all that.
      assert.equal((await client.restore('docs', 'a.txt', `?backupTimestamp=${timestamp}`)).status, 200);
    });
  });
}
