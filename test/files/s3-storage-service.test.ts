import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { after, before, describe, type TestContext, test } from 'node:test';
import { FilesClient, nextSecond, sha256 } from '../helpers/files.ts';
import { createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { startTestS3, type TestS3 } from '../helpers/s3-server.ts';
import { serviceFor, startTestService, type TestService } from '../helpers/test-service.ts';
import { signIn } from '../helpers/wallets.ts';

// The first step of issue 4: the service on STORAGE=s3 (a real S3-protocol server) and PostgreSQL.
describe('STORAGE=s3 on PostgreSQL: put → backup → change → restore → download', () => {
  let s3: TestS3;
  let svc: TestService;
  let fixture: TenantFixture;
  let client: FilesClient;

  before(async () => {
    s3 = await startTestS3();
    svc = await startTestService('postgres', { env: s3.env, transport: 'socket' });
    fixture = await createTenantFixture(svc.service.store, 'S3');
    client = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
  });
  after(async () => {
    await svc.close();
    await s3.close();
  });

  test('the restore brings back the backup, keeps the replaced version, and the URL serves the bytes', async () => {
    const original = Buffer.alloc(9 * 1024 * 1024, 7); // above the multipart threshold
    assert.equal((await client.put('docs', 'big.bin', original)).status, 201);
    await nextSecond();
    const backup = await client.backup();
    assert.equal(backup.status, 201, backup.body);
    assert.equal((await client.put('docs', 'big.bin', 'changed')).status, 200);

    const restored = await client.restore('docs', 'big.bin', `?backupTimestamp=${backup.json().timestamp}`);
    assert.equal(restored.status, 200, restored.body);
    assert.equal(restored.headers['content-type'], 'text/plain;charset=ISO-8859-1');
    const download = await client.get('docs', 'big.bin');
    assert.equal(download.status, 200);
    assert.equal(sha256(download.bytes), sha256(original));
    const versions = (await client.versions('docs', 'big.bin')).json().items as { kind: string; sha256: string }[];
    assert.deepEqual(
      versions.map((v) => [v.kind, v.sha256]),
      [
        ['replaced', sha256('changed')],
        ['replaced', sha256(original)],
        ['backup', sha256(original)],
      ],
    );
    assert.equal((await client.get('docs', 'big.bin', { Range: 'bytes=0-0' })).bytes.length, 1);
  });
});

/**
 * Checks a SigV4 presigned GET the way S3 does (s3rver checks only the expiry): recomputes the
 * signature over method, path, every signed query parameter and the host, from the credentials.
 */
function verifyPresignedGet(url: URL, secretKey: string): boolean {
  const params = [...url.searchParams.entries()].filter(([name]) => name !== 'X-Amz-Signature');
  const rfc3986 = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const query = params
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a], [b]) => (a! < b! ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonical = ['GET', url.pathname, query, `host:${url.host}\n`, 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const [, date, region, service] =
    /^[^/]+\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request$/.exec(url.searchParams.get('X-Amz-Credential') ?? '') ?? [];
  if (!date || !region || !service) return false;
  const toSign = [
    'AWS4-HMAC-SHA256',
    url.searchParams.get('X-Amz-Date'),
    `${date}/${region}/${service}/aws4_request`,
    createHash('sha256').update(canonical).digest('hex'),
  ].join('\n');
  const key = [date, region, service, 'aws4_request'].reduce<Buffer | string>(
    (k, part) => createHmac('sha256', k).update(part).digest(),
    `AWS4${secretKey}`,
  );
  return createHmac('sha256', key).update(toSign).digest('hex') === url.searchParams.get('X-Amz-Signature');
}

describe('STORAGE=s3: the URL a restore answers', () => {
  let s3: TestS3;
  before(async () => {
    s3 = await startTestS3();
  });
  after(() => s3.close());

  /** A service on the shared bucket with `env`, a file put, backed up, changed and restored. */
  async function restoredUrl(
    t: TestContext,
    env: Record<string, string>,
    filename: string,
    contentType: string,
  ): Promise<{ svc: TestService; client: FilesClient; url: string; original: Buffer }> {
    const svc = await serviceFor(t, 'postgres', { env: { ...s3.env, ...env }, transport: 'socket' });
    const fixture = await createTenantFixture(svc.service.store, 'S3 links');
    const client = new FilesClient(svc.baseUrl, fixture.channel.id, {
      ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)),
    });
    const original = Buffer.from(`the original of ${filename}`);
    const put = await client.put('docs', filename, original, contentType);
    assert.equal(put.status, 201, `${put.body}\n${svc.logs.filter((l) => l.includes('"level":50')).join('\n')}`);
    await nextSecond();
    const backup = await client.backup();
    assert.equal(backup.status, 201, backup.body);
    assert.equal((await client.put('docs', filename, 'changed', contentType)).status, 200);
    const restored = await client.restore('docs', filename, `?backupTimestamp=${backup.json().timestamp}`);
    assert.equal(restored.status, 200, restored.body);
    assert.equal(restored.headers['content-type'], 'text/plain;charset=ISO-8859-1');
    assert.match(restored.body, /^[\x21-\x7e]+$/, 'one URL, printable ASCII');
    return { svc, client, url: restored.body, original };
  }

  test("by default: the service's own file URL, which needs the wallet", async (t) => {
    const { svc, client, url, original } = await restoredUrl(t, {}, 'plain.txt', 'text/plain');
    assert.equal(url, `${svc.baseUrl}${client.filePath('docs', 'plain.txt')}`);
    assert.equal((await fetch(url)).status, 401);
    assert.equal(sha256((await client.get('docs', 'plain.txt')).bytes), sha256(original));
  });

  test("with S3_PUBLIC_BASE_URL: the object's public URL, each segment percent-encoded, serving the restored bytes and type", async (t) => {
    const publicBase = `${s3.endpoint}/${s3.bucket}`;
    const filename = 'réport #1 (final).csv';
    const { client, url, original } = await restoredUrl(t, { S3_PUBLIC_BASE_URL: `${publicBase}/` }, filename, 'text/csv');
    assert.equal(url, `${publicBase}/files/${encodeURIComponent(client.channelRef)}/docs/${encodeURIComponent(filename)}`);
    const download = await fetch(url);
    assert.equal(download.status, 200);
    assert.equal(sha256(Buffer.from(await download.arrayBuffer())), sha256(original));
    assert.equal(download.headers.get('content-type'), 'text/csv', 'the object keeps the type it was uploaded with');
  });

  test('with S3_PUBLIC_BASE_URL, the public copy at files/<channel>/<folder>/<filename> follows every upload, restore and delete; the record stays the truth', async (t) => {
    const publicBase = `${s3.endpoint}/${s3.bucket}`;
    const { svc, client, url, original } = await restoredUrl(t, { S3_PUBLIC_BASE_URL: publicBase }, 'followed.txt', 'text/plain');
    const publicText = async () => {
      const answer = await fetch(url);
      return answer.status === 200 ? await answer.text() : answer.status;
    };
    assert.equal(await publicText(), original.toString(), 'after the restore');
    assert.equal((await client.put('docs', 'followed.txt', 'uploaded after')).status, 200);
    assert.equal(await publicText(), 'uploaded after', 'after an upload');
    const record = await svc.service.store.files.getFile(client.channelRef, 'docs', 'followed.txt');
    assert.notEqual(record?.blobKey, `files/${client.channelRef}/docs/followed.txt`, 'the service reads its own blob, not the copy');
    assert.equal((await client.delete('docs', 'followed.txt')).status, 204);
    assert.equal(await publicText(), 404, 'after a delete the public copy is gone');
    assert.deepEqual(await svc.service.store.files.publicCopiesDue(), [], 'nothing left behind');
    // The deleted file's bytes are its version's, untouched by the copy's removal.
    const [deleted] = (await client.versions('docs', 'followed.txt')).json().items as { id: string; kind: string }[];
    assert.equal(deleted?.kind, 'deleted');
    const back = await client.restore('docs', 'followed.txt', `?versionId=${deleted!.id}`);
    assert.equal(back.status, 200, back.body);
    assert.equal(await publicText(), 'uploaded after', 'brought back');
  });

  test('with FILE_URL_SIGNING: a presigned GET of the object, signed for exactly that key and type, expiring after FILE_URL_TTL', async (t) => {
    const { url, original } = await restoredUrl(
      t,
      { FILE_URL_SIGNING: 'true', FILE_URL_TTL: '2', S3_PUBLIC_BASE_URL: 'https://cdn.example.com' },
      'page.html',
      'text/html',
    );
    const link = new URL(url);
    assert.equal(link.origin, s3.endpoint, 'signing wins over the public URL: the link must expire');
    assert.equal(link.searchParams.get('X-Amz-Expires'), '2');
    assert.ok(verifyPresignedGet(link, s3.env.AWS_SECRET_ACCESS_KEY!), 'a valid SigV4 signature');
    for (const [name, value] of [
      ['response-content-type', 'text/plain'],
      ['X-Amz-Expires', '604800'],
    ] as const) {
      const altered = new URL(link);
      altered.searchParams.set(name, value);
      assert.equal(verifyPresignedGet(altered, s3.env.AWS_SECRET_ACCESS_KEY!), false, `${name} is covered by the signature`);
    }
    const altered = new URL(link);
    altered.pathname = `${altered.pathname.slice(0, -1)}${altered.pathname.endsWith('0') ? '1' : '0'}`;
    assert.equal(verifyPresignedGet(altered, s3.env.AWS_SECRET_ACCESS_KEY!), false, 'the key is covered by the signature');

    const download = await fetch(url);
    assert.equal(download.status, 200);
    assert.equal(sha256(Buffer.from(await download.arrayBuffer())), sha256(original));
    assert.equal(download.headers.get('content-type'), 'text/html');
    assert.match(
      download.headers.get('content-disposition') ?? '',
      /^attachment; filename="page.html"/,
      'HTML downloads, as from the service',
    );
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal((await fetch(url)).status, 403, 'expired');
  });
});

describe('STORAGE=s3: readiness follows the object store', () => {
  test('/readyz answers 503 STORAGE_UNAVAILABLE while the bucket cannot be reached; /healthz stays 200', async (t) => {
    const s3 = await startTestS3();
    t.after(() => s3.close().catch(() => undefined));
    const svc = await serviceFor(t, 'postgres', { env: s3.env, transport: 'socket' });
    assert.equal((await fetch(`${svc.baseUrl}/readyz`)).status, 200);
    await s3.close();
    const ready = await fetch(`${svc.baseUrl}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal(ready.headers.get('content-type'), 'application/problem+json');
    assert.equal((await ready.json()).code, 'STORAGE_UNAVAILABLE');
    assert.equal((await fetch(`${svc.baseUrl}/healthz`)).status, 200);
  });
});
