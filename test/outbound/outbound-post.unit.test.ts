import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import { createServer as createTlsServer } from 'node:tls';
import { parseOutboundAllow } from '../../src/outbound/outbound-allow.ts';
import { type CheckedTarget, checkOutboundUrl } from '../../src/outbound/outbound-guard.ts';
import { postChecked } from '../../src/outbound/outbound-post.ts';

// The receivers of these tests listen on loopback, which only an operator's OUTBOUND_ALLOW opens.
const LOOPBACK = parseOutboundAllow('127.0.0.0/8');
const JSON_TYPE = { 'content-type': 'application/json' };

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A loopback HTTP receiver that records what it is sent and answers with `answer`. */
async function receiver(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: Seen[] = [];
  const closed: Promise<void>[] = [];
  const server = createServer((req, res) => {
    // Not events.once: the socket's ECONNRESET, when a client drops it, is expected here.
    closed.push(new Promise((resolve) => req.socket.on('close', () => resolve())));
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      answer(req, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { port, seen, closed, url: (path = '/hook') => `http://127.0.0.1:${port}${path}` };
}

const check = (url: string) => checkOutboundUrl(url, LOOPBACK);

describe('postChecked', () => {
  it('posts the body and the caller’s headers to the path and query, and returns status, excerpt and latency', async () => {
    const hook = await receiver((_req, res) => res.writeHead(202, { 'content-type': 'text/plain' }).end('accepted'));
    const body = JSON.stringify({ event: 'file.created', name: 'é' });
    const result = await postChecked(
      await check(hook.url('/hook?tenant=t1')),
      body,
      { ...JSON_TYPE, 'x-signature': 'v1=abc' },
      { timeoutMs: 2000 },
    );
    assert.equal(result.status, 202);
    assert.equal(result.excerpt, 'accepted');
    assert.ok(result.latencyMs >= 0 && result.latencyMs < 2000);
    const [request] = hook.seen;
    assert.deepEqual({ method: request!.method, url: request!.url, body: request!.body }, { method: 'POST', url: '/hook?tenant=t1', body });
    assert.equal(request!.headers['content-type'], 'application/json');
    assert.equal(request!.headers['x-signature'], 'v1=abc');
    assert.equal(request!.headers['content-length'], String(Buffer.byteLength(body)));
    assert.equal(request!.headers.host, `127.0.0.1:${hook.port}`);
  });

  it('does not follow a redirect: a 302 is the result, and the other URL is never requested', async () => {
    const elsewhere = await receiver((_req, res) => res.end('should never be reached'));
    const hook = await receiver((_req, res) => res.writeHead(302, { location: elsewhere.url('/stolen') }).end('moved'));
    const result = await postChecked(await check(hook.url()), '{}', JSON_TYPE, { timeoutMs: 2000 });
    assert.deepEqual([result.status, result.excerpt], [302, 'moved']);
    // Whatever would follow a redirect would have done so before the call returned.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(hook.seen.length, 1);
    assert.equal(elsewhere.seen.length, 0);
  });

  it('keeps only the excerpt of a 1 MB answer, returns at once and drops the connection', async () => {
    const hook = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      // 1 MB, then the answer stays open: only a reader that stops early returns.
      res.write('x'.repeat(1024 * 1024));
    });
    const started = performance.now();
    const result = await postChecked(await check(hook.url()), '{}', JSON_TYPE, { timeoutMs: 5000 });
    assert.ok(performance.now() - started < 1000, 'returned promptly');
    assert.deepEqual([result.status, result.excerpt], [200, 'x'.repeat(512)]);
    await hook.closed[0]; // the receiver sees its socket closed: nothing more is read
    const short = await postChecked(await check(hook.url()), '{}', JSON_TYPE, { timeoutMs: 5000, excerptBytes: 16 });
    assert.equal(short.excerpt, 'x'.repeat(16));
    const none = await postChecked(await check(hook.url()), '{}', JSON_TYPE, { timeoutMs: 5000, excerptBytes: 0 });
    assert.deepEqual([none.status, none.excerpt], [200, '']);
  });

  it('rejects after timeoutMs when the receiver never answers', async () => {
    const hook = await receiver(() => {});
    const started = performance.now();
    await assert.rejects(postChecked(await check(hook.url()), '{}', JSON_TYPE, { timeoutMs: 200 }), {
      message: 'timed out after 200 ms',
    });
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 190 && elapsed < 1500, `${elapsed} ms`);
    await hook.closed[0];
  });

  it('returns the status when the receiver answered but its body stalls past the deadline', async () => {
    const hook = await receiver((_req, res) => {
      res.writeHead(500);
      res.write('partial');
    });
    const result = await postChecked(await check(hook.url()), '{}', JSON_TYPE, { timeoutMs: 200 });
    assert.deepEqual([result.status, result.excerpt], [500, 'partial']);
  });

  it('connects to the checked address, not to what the name resolves to now, with the name as Host', async () => {
    const hook = await receiver((_req, res) => res.end('ok'));
    const answers = ['127.0.0.1', '10.255.255.1'];
    const lookups: string[] = [];
    // The first answer is checked; a second lookup would get somewhere else (DNS rebinding).
    const lookup = async (host: string) => {
      lookups.push(host);
      return [{ address: answers[lookups.length - 1]!, family: 4 }];
    };
    const target = await checkOutboundUrl(`http://hook.test:${hook.port}/hook`, parseOutboundAllow('hook.test'), lookup);
    assert.deepEqual([target.hostname, target.address], ['hook.test', '127.0.0.1']);
    const result = await postChecked(target, '{}', JSON_TYPE, { timeoutMs: 2000 });
    assert.equal(result.status, 200);
    assert.deepEqual(lookups, ['hook.test'], 'one lookup, at the check');
    assert.equal(hook.seen[0]!.headers.host, `hook.test:${hook.port}`);
    // A target built by hand: the name (reserved, it resolves nowhere) is never looked up at all.
    const handMade: CheckedTarget = {
      url: new URL(`http://Hook.Test.:${hook.port}/x`),
      hostname: 'hook.test',
      address: '127.0.0.1',
      family: 4,
    };
    assert.equal((await postChecked(handMade, '{}', JSON_TYPE, { timeoutMs: 2000 })).status, 200);
    assert.equal(hook.seen[1]!.headers.host, `hook.test:${hook.port}`);
  });

  it('sends the host name as the TLS server name, to the checked address', async () => {
    const names: string[] = [];
    // No certificate: the handshake ends at the server name, which is all this test needs to see.
    const server = createTlsServer({
      SNICallback: (name, callback) => {
        names.push(name);
        callback(new Error('no certificate here'));
      },
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    after(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const target: CheckedTarget = { url: new URL(`https://hook.test:${port}/`), hostname: 'hook.test', address: '127.0.0.1', family: 4 };
    const error: Error = await postChecked(target, '{}', JSON_TYPE, { timeoutMs: 2000 }).then(
      () => assert.fail('no TLS server to answer'),
      (e: Error) => e,
    );
    assert.match(error.message, /^(connection reset \(ECONNRESET\)|TLS failed \([A-Z_]+\))$/);
    assert.deepEqual(names, ['hook.test']);
  });

  it('decodes the excerpt as UTF-8 and replaces control characters', async () => {
    // 'é' is two bytes: an excerpt of 15 bytes cuts the first one in half.
    const hook = await receiver((_req, res) => res.end(Buffer.from('a\tb\r\nc\u0000\u001b[2J\u202eé\u0085é', 'utf8')));
    const result = await postChecked(await check(hook.url()), '{}', JSON_TYPE, { timeoutMs: 2000 });
    assert.equal(result.excerpt, 'a b  c\ufffd\ufffd[2J\ufffdé\ufffdé');
    const cut = await postChecked(await check(hook.url()), '{}', JSON_TYPE, { timeoutMs: 2000, excerptBytes: 15 });
    assert.equal(cut.excerpt, 'a b  c\ufffd\ufffd[2J\ufffd', 'the half character is dropped');
  });

  it('rejects with a short message on a refused connection, an abort or a bad header, and sends URL credentials as Basic', async () => {
    const hanging = await receiver(() => {});
    const hangingPort = hanging.port;
    const probe = createServer();
    probe.listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const freePort = (probe.address() as AddressInfo).port;
    probe.close();
    await once(probe, 'close');
    await assert.rejects(postChecked(await check(`http://127.0.0.1:${freePort}/`), '{}', JSON_TYPE, { timeoutMs: 2000 }), {
      message: 'connection refused (ECONNREFUSED)',
    });

    const controller = new AbortController();
    const pending = postChecked(await check(`http://127.0.0.1:${hangingPort}/`), '{}', JSON_TYPE, {
      timeoutMs: 5000,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(pending, { message: 'aborted' });
    await assert.rejects(postChecked(await check(hanging.url()), '{}', JSON_TYPE, { timeoutMs: 5000, signal: controller.signal }), {
      message: 'aborted before sending',
    });

    // Refused by Node before sending, and nothing is left running (the deadline would fire after).
    await assert.rejects(postChecked(await check(hanging.url()), '{}', { 'x-bad': 'a\r\nInjected: 1' }, { timeoutMs: 30 }), {
      message: 'request not sent (ERR_INVALID_CHAR)',
    });
    await new Promise((resolve) => setTimeout(resolve, 60));

    const hook = await receiver((_req, res) => res.end());
    await postChecked(await check(`http://user:p%40ss@127.0.0.1:${hook.port}/`), '{}', JSON_TYPE, { timeoutMs: 2000 });
    assert.equal(hook.seen[0]!.headers.authorization, `Basic ${Buffer.from('user:p@ss').toString('base64')}`);
  });
});
