import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { assertContractHeaders, assertProblem } from '../helpers/assertions.ts';
import { FilesClient, sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { assertRawProblem, parseRaw } from '../helpers/raw-http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

/**
 * OWASP API4: each limit has a default far above normal use (checked here against a real
 * sign-in) and is crossed here with a small setting. Every answer to a crossing is in the one
 * error format with the contract's headers, or — for connections beyond MAX_CONNECTIONS — a
 * connection closed unanswered.
 */
const LIMITS = {
  MAX_HEADER_BYTES: '4096',
  MAX_JSON_BYTES: '2048',
  MAX_FILE_BYTES: '10000',
  REQUEST_TIMEOUT: '1',
  BODY_IDLE_TIMEOUT: '2',
  KEEP_ALIVE_TIMEOUT: '1',
  AUTH_CACHE_SIZE: '20',
  AUTH_FAIL_LIMIT: '3',
};

describe('resource limits (OWASP API4)', () => {
  let svc: TestService;
  let fixture: TenantFixture;
  let port: number;
  let auth: Record<string, string>;
  const crossed: string[] = [];

  before(async () => {
    svc = await startTestService('sqlite', { env: { ...LIMITS, TRUST_PROXY: '127.0.0.1' }, transport: 'socket' });
    port = Number(new URL(svc.baseUrl).port);
    fixture = await createTenantFixture(svc.service.store, 'Limits');
    auth = { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) };
  });
  after(() => svc.close());

  test('the defaults are documented values far above normal use', () => {
    const defaults = loadConfig({}).limits;
    assert.deepEqual(defaults, {
      requestTimeoutSeconds: 30,
      bodyIdleSeconds: 30,
      maxHeaderBytes: 16384,
      maxJsonBytes: 1048576,
      keepAliveSeconds: 72,
      maxConnections: 10000,
    });
    const signInHeaderBytes = Object.entries(auth).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
    assert.ok(
      signInHeaderBytes * 8 < defaults.maxHeaderBytes,
      `a sign-in (${signInHeaderBytes} bytes of headers) is far below the header limit`,
    );
  });

  test('headers: a request within MAX_HEADER_BYTES is served, one beyond gets 431', async () => {
    assert.equal((await request(svc.baseUrl, '/api/auth/test', { headers: { ...auth, 'X-Pad': 'p'.repeat(1000) } })).status, 200);
    const { text, closedAfterMs } = await exchangeUntilClosed(
      port,
      (s) => s.write(`GET /api/auth/test HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(5000)}\r\n\r\n`),
      CLOSE_BOUND_MS,
    );
    assertRawProblem(text, 431, 'HEADERS_TOO_LARGE');
    assert.ok(closedAfterMs !== undefined, 'the connection is closed');
    crossed.push('MAX_HEADER_BYTES → 431');
  });

  test('JSON bodies: beyond MAX_JSON_BYTES 413, and the file is untouched', async () => {
    const client = new FilesClient(svc.baseUrl, fixture.channel.id, auth);
    assert.equal((await client.put('docs', 'kept.txt', 'kept')).status, 201);
    const response = await client.restore(
      'docs',
      'kept.txt',
      '?backupTimestamp=20260101_000000',
      JSON.stringify({ pad: 'x'.repeat(3000) }),
    );
    assertProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    assert.equal((await client.get('docs', 'kept.txt')).body, 'kept');
    crossed.push('MAX_JSON_BYTES → 413');
  });

  test('uploads: beyond MAX_FILE_BYTES 413, and the previous bytes stay', async () => {
    const client = new FilesClient(svc.baseUrl, fixture.channel.id, auth);
    assert.equal((await client.put('docs', 'big.bin', Buffer.alloc(10_000, 1))).status, 201);
    assertProblem(await client.put('docs', 'big.bin', Buffer.alloc(10_001, 2)), 413, 'PAYLOAD_TOO_LARGE');
    assert.deepEqual((await client.get('docs', 'big.bin')).bytes, Buffer.alloc(10_000, 1));
    crossed.push('MAX_FILE_BYTES → 413');
  });

  test('path: a segment longer than 255 bytes of UTF-8 could be (765 encoded characters) gets 414', async () => {
    const client = new FilesClient(svc.baseUrl, fixture.channel.id, auth);
    assertProblem(await client.get('docs', 'n'.repeat(766)), 414, 'URI_TOO_LONG');
    crossed.push('path segment → 414');
  });

  test('request timeout: headers still incomplete after REQUEST_TIMEOUT get 408 and the connection closes', async () => {
    const { text, closedAfterMs } = await exchangeUntilClosed(
      port,
      (s) => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: '),
      CLOSE_BOUND_MS,
    );
    assertRawProblem(text, 408, 'REQUEST_TIMEOUT');
    assert.ok(closedAfterMs !== undefined && closedAfterMs >= 900, `closed after ${closedAfterMs} ms`);
    assert.match(parseRaw(text).body.detail, /headers/);
    crossed.push('REQUEST_TIMEOUT → 408');
  });

  test('body idle: a JSON body that stops arriving for BODY_IDLE_TIMEOUT gets 408 and the connection closes', async () => {
    // Headers sent, then the body promised by Content-Length never comes.
    const restore = '/api/channels/c/folders/f/files/n/restore';
    const { text, closedAfterMs } = await exchangeUntilClosed(
      port,
      (s) => s.write(`POST ${restore} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a"`),
      CLOSE_BOUND_MS,
    );
    assertRawProblem(text, 408, 'REQUEST_TIMEOUT');
    assert.ok(closedAfterMs !== undefined && closedAfterMs >= 1900, `closed after ${closedAfterMs} ms`);
    assert.match(parseRaw(text).body.detail, /BODY_IDLE_TIMEOUT/);
    // The request Fastify was still reading ends without a socket: logging it once crashed the process.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await request(svc.baseUrl, '/healthz')).status, 200);
    crossed.push('BODY_IDLE_TIMEOUT → 408');
  });

  test('slow upload: a body that keeps arriving for longer than REQUEST_TIMEOUT and BODY_IDLE_TIMEOUT together is stored whole', async () => {
    const client = new FilesClient(svc.baseUrl, fixture.channel.id, auth);
    const bytes = randomBytes(8000);
    const started = Date.now();
    // 16 pieces a quarter-second apart: never idle for long, about 4 s in all.
    const response = await trickleUpload(client, 'slow.bin', bytes, 16, 250);
    const tookMs = Date.now() - started;
    assert.equal(response.status, 201, response.body);
    assert.ok(tookMs > 3000, `the upload took ${tookMs} ms, longer than both limits together`);
    assert.equal(JSON.parse(response.body).sha256, sha256(bytes));
    assert.deepEqual((await client.get('docs', 'slow.bin')).bytes, bytes);
    crossed.push('slow upload beyond REQUEST_TIMEOUT → stored');
  });

  test('stalled upload: cut with 408 after BODY_IDLE_TIMEOUT; the previous file stays and no temporary file is left', async () => {
    const client = new FilesClient(svc.baseUrl, fixture.channel.id, auth);
    assert.equal((await client.put('docs', 'stall.bin', 'before')).status, 201);
    const versionsBefore = (await client.versions('docs', 'stall.bin')).json().items.length;
    const head = [
      `PUT ${client.filePath('docs', 'stall.bin')} HTTP/1.1`,
      'Host: x',
      'Content-Type: application/octet-stream',
      'Content-Length: 9000',
      ...Object.entries(auth).map(([name, value]) => `${name}: ${value}`),
    ];
    const { text, closedAfterMs } = await exchangeUntilClosed(
      port,
      (s) => s.write(`${head.join('\r\n')}\r\n\r\n${'x'.repeat(1000)}`),
      CLOSE_BOUND_MS,
    );
    assertRawProblem(text, 408, 'REQUEST_TIMEOUT');
    assert.ok(closedAfterMs !== undefined && closedAfterMs >= 1900, `closed after ${closedAfterMs} ms`);
    assert.equal((await client.get('docs', 'stall.bin')).body, 'before');
    assert.equal((await client.versions('docs', 'stall.bin')).json().items.length, versionsBefore);
    // The aborted write removes its temporary file as it unwinds; give it the time a loaded machine needs.
    const channelDir = path.join(svc.config.dataDir, 'storage', 'objects', fixture.channel.id);
    let temps = await tempFilesUnder(channelDir);
    for (let i = 0; i < 50 && temps.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      temps = await tempFilesUnder(channelDir);
    }
    assert.deepEqual(temps, []);
    crossed.push('stalled upload → 408, nothing stored');
  });

  test('keep-alive: an idle connection is closed after KEEP_ALIVE_TIMEOUT', async () => {
    // Not before the timeout; how soon after it depends on the machine's load, so only that it happens.
    const { text, closedAfterMs } = await exchangeUntilClosed(
      port,
      (s) => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'),
      CLOSE_BOUND_MS,
    );
    assert.match(text, /^HTTP\/1\.1 200/);
    assert.ok(closedAfterMs !== undefined && closedAfterMs >= 900, `closed after ${closedAfterMs} ms`);
    crossed.push('KEEP_ALIVE_TIMEOUT → idle connection closed');
  });

  test('connections: beyond MAX_CONNECTIONS a new connection is closed unanswered; the open ones keep working', async () => {
    // A service of its own, with the default timeouts: the held connections stay open however long
    // a loaded machine takes (under the one-second limits above they timed out first), and none of
    // them can linger into another test.
    const maxConnections = 8;
    const limited = await startTestService('sqlite', { env: { MAX_CONNECTIONS: String(maxConnections) }, transport: 'socket' });
    const limitedPort = Number(new URL(limited.baseUrl).port);
    const held: net.Socket[] = [];
    try {
      for (let i = 0; i < maxConnections; i++) {
        const socket = net.connect(limitedPort, '127.0.0.1');
        await new Promise((resolve) => socket.on('connect', resolve));
        held.push(socket);
      }
      await until(async () => (await connectionsOf(limited)) === maxConnections);
      // Waits for the close itself (bounded far above what a loaded machine needs), not a fixed 5 s.
      const { text, closedAfterMs } = await exchangeUntilClosed(
        limitedPort,
        (s) => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'),
        CLOSE_BOUND_MS,
      );
      assert.equal(text, '', 'no answer beyond the limit');
      assert.ok(closedAfterMs !== undefined, 'the extra connection is closed');
      // One of the held connections is still served.
      const answer = await new Promise<string>((resolve) => {
        held[0]!.once('data', (chunk) => resolve(chunk.toString()));
        held[0]!.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      });
      assert.match(answer, /^HTTP\/1\.1 200/);
      for (const socket of held) socket.destroy();
      await until(async () => (await connectionsOf(limited)) === 0);
      assert.equal((await request(limited.baseUrl, '/healthz')).status, 200, 'served again once connections are freed');
    } finally {
      for (const socket of held) socket.destroy();
      await limited.close();
    }
    crossed.push('MAX_CONNECTIONS → connection closed');
  });

  test('signature cache: 200 distinct valid sign-ins leave at most AUTH_CACHE_SIZE entries', async () => {
    const domain = svc.config.auth.domains[0]!;
    for (let i = 0; i < 200; i++) {
      const headers = await signIn(fixture.ownerWallet, domain, {
        nonce: randomBytes(8).toString('hex'),
        statement: 'x'.repeat(i % 2 === 0 ? 10 : 2000),
      });
      assert.equal((await request(svc.baseUrl, '/api/auth/test', { headers })).status, 200);
    }
    assert.equal(svc.service.authenticator.signatures.size, Number(LIMITS.AUTH_CACHE_SIZE));
    crossed.push('AUTH_CACHE_SIZE → oldest entries evicted');
  });

  test('failed sign-ins: beyond AUTH_FAIL_LIMIT from one address 429 with Retry-After', async () => {
    const bad = {
      ...auth,
      'X-SIG': `${auth['X-SIG']!.slice(0, 10)}${auth['X-SIG']![10] === 'a' ? 'b' : 'a'}${auth['X-SIG']!.slice(11)}`,
      'X-Forwarded-For': '10.9.8.7',
    };
    for (let i = 0; i < Number(LIMITS.AUTH_FAIL_LIMIT); i++)
      assert.equal((await request(svc.baseUrl, '/api/auth/test', { headers: bad })).status, 401);
    const limited = await request(svc.baseUrl, '/api/auth/test', { headers: bad });
    assertProblem(limited, 429, 'RATE_LIMITED');
    assert.ok(Number(limited.headers['retry-after']) > 0);
    const fine = await request(svc.baseUrl, '/api/auth/test', { headers: { ...auth, 'X-Forwarded-For': '10.9.8.8' } });
    assert.equal(fine.status, 200);
    assertContractHeaders(fine);
    crossed.push('AUTH_FAIL_LIMIT → 429');
  });

  test('malformed HTTP gets 400 in the one error format', async (t) => {
    const { text } = await exchangeUntilClosed(
      port,
      (s) => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
      CLOSE_BOUND_MS,
    );
    assertRawProblem(text, 400, 'HTTP_MALFORMED');
    crossed.push('malformed HTTP → 400');
    t.diagnostic(`limits crossed: ${crossed.length} — ${crossed.join('; ')}`);
  });
});

/**
 * How long a test waits for the service to close a connection before failing: a bound, not the
 * measure (each answer resolves on the close itself), far above the limits under test so that a
 * loaded machine never reaches it.
 */
const CLOSE_BOUND_MS = 30_000;

/** Like rawExchange, but returns as soon as the server closes the connection (or at maxMs). */
function exchangeUntilClosed(
  port: number,
  send: (socket: net.Socket) => void,
  maxMs: number,
): Promise<{ text: string; closedAfterMs: number | undefined }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = Date.now();
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedAfterMs: undefined });
    }, maxMs);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    socket.on('connect', () => send(socket));
  });
}

/** An upload sent in `pieces` parts, `gapMs` apart, as a slow line would deliver it. */
function trickleUpload(
  client: FilesClient,
  filename: string,
  bytes: Buffer,
  pieces: number,
  gapMs: number,
): Promise<{ status: number; body: string }> {
  const url = new URL(client.filePath('docs', filename), client.baseUrl);
  const headers = { ...client.auth, 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes.length) };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'PUT', headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    const size = Math.ceil(bytes.length / pieces);
    let sent = 0;
    const sendNext = () => {
      req.write(bytes.subarray(sent, sent + size));
      sent += size;
      if (sent >= bytes.length) req.end();
      else setTimeout(sendNext, gapMs);
    };
    sendNext();
  });
}

async function tempFilesUnder(directory: string): Promise<string[]> {
  const names = await readdir(directory, { recursive: true });
  return names.filter((name) => path.basename(name).startsWith('.wa-tmp-'));
}

/** The connections a listening service holds open now. */
const connectionsOf = (svc: TestService) =>
  new Promise<number>((resolve, reject) =>
    svc.service.app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

/** Waits until `condition` holds, checking every 20 ms; fails after 10 s (a bound for a loaded machine, not a timing). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
