import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { FilesClient, sha256 } from '../helpers/files.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import type { HttpResponse } from '../helpers/http.ts';
import { startTestS3 } from '../helpers/s3-server.ts';
import { serviceFor } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

/**
 * A TCP relay in front of the object store that can turn into a store that hangs: every
 * connection is accepted, and then nothing is ever answered (a half-open connection, a stalled
 * load balancer). Turning it on cuts the connections the SDK keeps alive, so that no request slips
 * through one of them.
 */
async function switchableRelay(target: { host: string; port: number }) {
  let hanging = false;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  };
  const server = createServer((client) => {
    track(client);
    if (hanging) return; // accepted, read, never answered
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cutAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    hang() {
      hanging = true;
      cutAll();
    },
    relay() {
      hanging = false;
      cutAll();
    },
    close: () => {
      cutAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A bound on an answer that must come: far above S3_TIMEOUT (1 s here) and the SDK's attempts, so only a hang trips it. */
async function answered(what: string, response: Promise<HttpResponse>): Promise<HttpResponse> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within 120 s; the request hangs on the store`)), 120_000);
  });
  try {
    return await Promise.race([response, hang]);
  } finally {
    clearTimeout(timer);
  }
}

test('an object store that accepts connections and never answers: 503 STORAGE_UNAVAILABLE after S3_TIMEOUT, the file lock let go, nothing changed', async (t) => {
  const s3 = await startTestS3();
  t.after(() => s3.close());
  const relay = await switchableRelay({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
  t.after(() => relay.close());
  const svc = await serviceFor(t, 'sqlite', {
    env: { ...s3.env, S3_ENDPOINT: relay.endpoint, S3_TIMEOUT: '1', BODY_IDLE_TIMEOUT: '1' },
  });
  const fixture = await createTenantFixture(svc.service.store, 'Hung');
  const client = new FilesClient(svc.baseUrl, fixture.channel.id, {
    ...(await signIn(fixture.ownerWallet, `127.0.0.1:${svc.config.port}`)),
  });
  assert.equal((await client.put('docs', 'a.txt', 'one')).status, 201);

  relay.hang();
  // An upload (to a new and to an existing file, whose lock it takes) and a download: each an S3 request that never gets an answer.
  const refused = [
    ['upload replacing a file', await answered('upload', client.put('docs', 'a.txt', 'two'))],
    ['upload of a new file', await answered('new upload', client.put('docs', 'b.txt', 'new'))],
    ['download', await answered('download', client.get('docs', 'a.txt'))],
  ] as const;
  for (const [what, answer] of refused) {
    assert.equal(answer.status, 503, `${what}: ${answer.body}`);
    assert.equal(answer.headers['content-type'], 'application/problem+json', what);
    assert.equal(answer.json().code, 'STORAGE_UNAVAILABLE', what);
  }

  relay.relay();
  // Nothing changed, and the lock of a.txt was let go: the next upload of it goes through at once.
  const kept = await answered('download after', client.get('docs', 'a.txt'));
  assert.equal(kept.body, 'one');
  assert.equal(kept.headers.etag, `"${sha256('one')}"`);
  assert.equal((await answered('list', client.list('docs'))).json().items.length, 1, 'b.txt was not created');
  assert.equal((await answered('upload after', client.put('docs', 'a.txt', 'three'))).status, 200);
  assert.equal((await client.get('docs', 'a.txt')).body, 'three');
});
