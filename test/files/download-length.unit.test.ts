import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { BlobStorage } from '../../src/blobs/blob-storage.ts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { isAppError } from '../../src/errors/app-error.ts';
import { exactLength } from '../../src/files/exact-length.ts';
import { bodyOf } from '../blobs/blob-storage.contract.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { rawExchange } from '../helpers/raw-http.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { type AuthHeaders, signIn } from '../helpers/wallets.ts';

const INJECTED = '\r\n\r\nHTTP/1.1 299 Injected\r\nContent-Type: text/plain\r\nContent-Length: 8\r\n\r\nInjected';

/**
 * A download declares its length before it sends a byte. Should a file's stored bytes ever
 * disagree with its record (made so on purpose here, by rewriting the blob behind the service's
 * back), the answer carries exactly the declared length or no body at all, so that a keep-alive
 * connection, or a proxy reusing it, never reads the surplus as the next answer.
 */
for (const setup of FILE_SETUPS) {
  describe(`a download whose stored bytes disagree with the record (${setup})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let auth: AuthHeaders;
    let client: FilesClient;
    let blobs: BlobStorage;
    let port: number;

    before(async () => {
      svc = await startTestService(setup, { transport: 'socket' });
      port = Number(new URL(svc.baseUrl).port);
      fixture = await createTenantFixture(svc.service.store, 'Lengths');
      auth = await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!);
      client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...auth });
      blobs = await openBlobStorage(svc.config);
    });
    after(async () => {
      await blobs.close();
      await svc.close();
    });

    /** Uploads `declared`, then puts `stored` in its blob's place. */
    async function tampered(filename: string, declared: string, stored: string): Promise<void> {
      assert.equal((await client.put('docs', filename, declared)).status, 201);
      const record = await svc.service.store.files.getFile(fixture.channel.id, 'docs', filename);
      await blobs.put(record!.blobKey, bodyOf(stored));
    }

    /** Two requests pipelined on one connection: the file's, then /healthz; every status line that came back. */
    async function pipelined(filename: string, extra = ''): Promise<{ text: string; statuses: string[] }> {
      const headers = Object.entries(auth)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      const { text } = await rawExchange(
        port,
        (socket) =>
          socket.write(
            `GET ${client.filePath('docs', filename)} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}${extra}\r\n` +
              'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
          ),
        1500,
      );
      return { text, statuses: text.match(/HTTP\/1\.1 \d{3}/g) ?? [] };
    }

    test('longer bytes with an answer hidden in their tail: refused before any byte (500 INTEGRITY_FAILED), no injected answer', async () => {
      await tampered('longer.txt', 'hello', `hello${INJECTED}`);
      const { text, statuses } = await pipelined('longer.txt');
      assert.ok(!text.includes('Injected'), `the surplus reached the connection:\n${text}`);
      assert.deepEqual(statuses, ['HTTP/1.1 500', 'HTTP/1.1 200']);
      assert.match(text, /"code":"INTEGRITY_FAILED"/);
    });

    test('shorter bytes: refused before any byte, the connection goes on', async () => {
      await tampered('shorter.txt', 'hello, world', 'hello');
      const { statuses } = await pipelined('shorter.txt');
      assert.deepEqual(statuses, ['HTTP/1.1 500', 'HTTP/1.1 200']);
    });

    test('a range of a file whose bytes disagree: refused too', async () => {
      await tampered('ranged.txt', 'hello', `hello${INJECTED}`);
      const { text, statuses } = await pipelined('ranged.txt', 'Range: bytes=0-2\r\n');
      assert.ok(!text.includes('Injected'));
      assert.deepEqual(statuses, ['HTTP/1.1 500', 'HTTP/1.1 200']);
    });

    test('HEAD opens no bytes: it answers the record’s length; the file intact, GET sends exactly it', async () => {
      assert.equal((await client.put('docs', 'intact.txt', 'twelve bytes')).status, 201);
      const head = await fetch(`${svc.baseUrl}${client.filePath('docs', 'intact.txt')}`, { method: 'HEAD', headers: { ...auth } });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), '12');
      const { text, statuses } = await pipelined('intact.txt');
      assert.deepEqual(statuses, ['HTTP/1.1 200', 'HTTP/1.1 200']);
      assert.ok(text.includes('\r\n\r\ntwelve bytesHTTP/1.1 200'), 'exactly the twelve bytes, then the next answer');
    });
  });
}

describe('exactLength, the guard on every download stream', () => {
  const drain = async (stream: Readable) => {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return { bytes: Buffer.concat(chunks), error: undefined };
    } catch (error) {
      return { bytes: Buffer.concat(chunks), error };
    }
  };

  test('passes a stream of the declared length whole', async () => {
    const { bytes, error } = await drain(exactLength(Readable.from([Buffer.from('abc'), Buffer.from('def')]), 6));
    assert.equal(bytes.toString(), 'abcdef');
    assert.equal(error, undefined);
  });

  test('a longer stream: never more than declared (the chunk that overflows is held back), and an error', async () => {
    const { bytes, error } = await drain(exactLength(Readable.from([Buffer.from('abc'), Buffer.from('def')]), 4));
    assert.ok(bytes.length <= 4, `passed ${bytes.length} bytes`);
    assert.ok(isAppError(error) && error.code === 'INTEGRITY_FAILED');
  });

  test('a shorter stream: an error at its end', async () => {
    const { error } = await drain(exactLength(Readable.from([Buffer.from('abc')]), 4));
    assert.ok(isAppError(error) && error.code === 'INTEGRITY_FAILED');
  });

  test("the source's own error ends the guarded stream too", async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('disk gone'));
      },
    });
    const { error } = await drain(exactLength(failing, 4));
    assert.match(String(error), /disk gone/);
  });
});
