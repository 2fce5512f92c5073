import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertProblem } from '../helpers/assertions.ts';
import { FILE_SETUPS } from '../helpers/backends.ts';
import { FilesClient, sha256 } from '../helpers/files.ts';
import { createMemberAdmin, createTenantFixture, type TenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { sample } from '../helpers/metrics-text.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';
import { cuttingProxy, randomPayload, tusMetadata, uploadToEnd } from '../helpers/tus.ts';
import { signIn } from '../helpers/wallets.ts';

const TUS = { 'Tus-Resumable': '1.0.0' };
const STREAM = { 'Content-Type': 'application/offset+octet-stream' };
const MiB = 1024 * 1024;

for (const setup of FILE_SETUPS) {
  describe(`resumable uploads, tus 1.0.0 (${setup})`, () => {
    let svc: TestService;
    let fixture: TenantFixture;
    let files: FilesClient;
    const create = (headers: Record<string, string>, body?: Buffer) =>
      request(svc.baseUrl, `/api/channels/${fixture.channel.id}/uploads`, {
        method: 'POST',
        headers: { ...files.auth, ...TUS, ...headers },
        body,
      });
    const at = (location: string, method: string, headers: Record<string, string> = {}, body?: Buffer) =>
      request(svc.baseUrl, location, { method, headers: { ...files.auth, ...TUS, ...headers }, body });

    before(async () => {
      svc = await startTestService(setup, { transport: 'socket', env: { MAX_FILE_BYTES: String(100 * MiB), UPLOADS_MAX_PER_ADMIN: '5' } });
      fixture = await createTenantFixture(svc.service.store, 'Uploads');
      files = new FilesClient(svc.baseUrl, fixture.channel.id, { ...(await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!)) });
    });
    after(() => svc.close());

    test('tus-js-client: a 64 MiB upload whose connection is cut three times at random points resumes, and becomes the file exactly as a PUT does', async () => {
      const data = randomPayload(64 * MiB);
      // Three connections cut after a random 4–16 MiB each (48 MiB at most: each cut lands inside the upload): the client retries, asks where the upload stands, and goes on.
      const proxy = await cuttingProxy(
        new URL(svc.baseUrl),
        [0, 1, 2].map(() => (4 + Math.random() * 12) * MiB),
      );
      const { url, resumedAt } = await uploadToEnd(data, {
        endpoint: `${proxy.url}/api/channels/${fixture.channel.id}/uploads`,
        headers: files.auth,
        metadata: { folder: 'big', filename: 'video.bin', contentType: 'video/mp4' },
      }).finally(() => proxy.close());
      assert.equal(proxy.cuts(), 3);
      // A cut is what the protocol is for: no error in the service's log for it.
      const errors = svc.logs.filter((line) => JSON.parse(line).level >= 50);
      assert.deepEqual(errors, []);
      // Each resumption went on from the bytes the server had kept, never from zero.
      assert.equal(resumedAt.length, 3, `asked where it stood: ${resumedAt.join(', ')}`);
      for (const [i, offset] of resumedAt.entries()) assert.ok(offset > (resumedAt[i - 1] ?? 0), `resumed at ${resumedAt.join(', ')}`);
      const stored = await files.get('big', 'video.bin');
      assert.equal(stored.status, 200);
      assert.equal(sha256(stored.bytes), sha256(data));
      assert.equal(stored.headers['content-type'], 'video/mp4');
      assert.equal(stored.headers.etag, `"${sha256(data)}"`);
      // The upload URL now says it is whole, with the file's ETag.
      const head = await at(new URL(url).pathname, 'HEAD');
      assert.equal(head.status, 200);
      assert.equal(head.headers['upload-offset'], String(data.length));
      assert.equal(head.headers['upload-length'], String(data.length));
      assert.equal(head.headers.etag, `"${sha256(data)}"`);
      // One audit entry, as for a PUT.
      const entries = (await files.audit('?action=upload'))
        .json()
        .items.filter((entry: { filename: string }) => entry.filename === 'video.bin');
      assert.equal(entries.length, 1);
      assert.equal(entries[0].result, 'ok');
    });

    test('the protocol: discovery, version, creation-with-upload, offsets, checksums and the final ETag', async () => {
      const options = await request(svc.baseUrl, `/api/channels/${fixture.channel.id}/uploads`, { method: 'OPTIONS' });
      assert.equal(options.status, 204);
      assert.equal(options.headers['tus-version'], '1.0.0');
      assert.equal(options.headers['tus-checksum-algorithm'], 'sha256');
      assert.equal(options.headers['tus-max-size'], String(100 * MiB));
      assert.match(
        String(options.headers['tus-extension']),
        /creation-with-upload.*creation-defer-length.*termination.*expiration.*checksum/,
      );

      const metadata = tusMetadata({ folder: 'proto', filename: 'notes ñ.txt' });
      const noVersion = await request(svc.baseUrl, `/api/channels/${fixture.channel.id}/uploads`, {
        method: 'POST',
        headers: { ...files.auth, 'Upload-Length': '10', 'Upload-Metadata': metadata },
      });
      assertProblem(noVersion, 412, 'TUS_VERSION_UNSUPPORTED');
      assert.equal(noVersion.headers['tus-version'], '1.0.0');

      const body = Buffer.from('hello, resumable world');
      const created = await create({ 'Upload-Length': String(body.length), 'Upload-Metadata': metadata, ...STREAM }, body.subarray(0, 5));
      assert.equal(created.status, 201, created.body);
      assert.equal(created.headers['tus-resumable'], '1.0.0');
      assert.equal(created.headers['upload-offset'], '5');
      assert.match(String(created.headers['upload-expires']), /GMT$/);
      const location = String(created.headers.location);
      assert.match(location, /^\/api\/channels\/.+\/uploads\/[0-9a-f]{32}$/);

      const stale = await at(location, 'PATCH', { 'Upload-Offset': '0', ...STREAM }, body);
      assertProblem(stale, 409, 'UPLOAD_OFFSET_MISMATCH');
      assert.equal(stale.json().offset, 5);
      const wrongType = await at(location, 'PATCH', { 'Upload-Offset': '5', 'Content-Type': 'application/octet-stream' }, body.subarray(5));
      assertProblem(wrongType, 415, 'UNSUPPORTED_MEDIA_TYPE');

      // A checksum that does not match: 460, and none of the bytes count.
      const wrongSum = createHash('sha256').update('something else').digest('base64');
      const mismatch = await at(
        location,
        'PATCH',
        { 'Upload-Offset': '5', 'Upload-Checksum': `sha256 ${wrongSum}`, ...STREAM },
        body.subarray(5, 10),
      );
      assertProblem(mismatch, 460, 'UPLOAD_CHECKSUM_MISMATCH');
      assert.equal(mismatch.json().title, 'Checksum Mismatch');
      assert.equal((await at(location, 'HEAD')).headers['upload-offset'], '5');
      // A creation whose first bytes are refused leaves nothing behind: its Location was never answered.
      const refusedFirst = await create(
        { 'Upload-Length': '3', 'Upload-Metadata': metadata, 'Upload-Checksum': `sha256 ${wrongSum}`, ...STREAM },
        Buffer.from('abc'),
      );
      assertProblem(refusedFirst, 460, 'UPLOAD_CHECKSUM_MISMATCH');
      assert.equal(refusedFirst.headers.location, undefined);
      if (setup !== 'postgres+s3') assert.equal((await staged(svc)).length, 1, 'only the upload under way is staged');
      const md5 = await at(
        location,
        'PATCH',
        { 'Upload-Offset': '5', 'Upload-Checksum': 'md5 1B2M2Y8AsgTpgAmY7PhCfg==', ...STREAM },
        body.subarray(5, 10),
      );
      assertProblem(md5, 400, 'VALIDATION_FAILED');

      const rightSum = createHash('sha256').update(body.subarray(5, 10)).digest('base64');
      const checked = await at(
        location,
        'PATCH',
        { 'Upload-Offset': '5', 'Upload-Checksum': `sha256 ${rightSum}`, ...STREAM },
        body.subarray(5, 10),
      );
      assert.equal(checked.status, 204, checked.body);
      assert.equal(checked.headers['upload-offset'], '10');
      const tooMuch = await at(
        location,
        'PATCH',
        { 'Upload-Offset': '10', ...STREAM },
        Buffer.concat([body.subarray(10), Buffer.from('!')]),
      );
      assertProblem(tooMuch, 413, 'PAYLOAD_TOO_LARGE');
      assert.equal((await at(location, 'HEAD')).headers['upload-offset'], '10');

      const last = await at(location, 'PATCH', { 'Upload-Offset': '10', ...STREAM }, body.subarray(10));
      assert.equal(last.status, 204, last.body);
      assert.equal(last.headers['upload-offset'], String(body.length));
      assert.equal(last.headers.etag, `"${sha256(body)}"`);
      const stored = await files.get('proto', 'notes ñ.txt');
      assert.equal(stored.body, body.toString());
      assert.equal(stored.headers['content-type'], 'text/plain');
    });

    test('deferred length, If-Match checked at the completion, and MAX_FILE_BYTES at the creation', async () => {
      const metadata = tusMetadata({ folder: 'defer', filename: 'd.bin' });
      const created = await create({ 'Upload-Defer-Length': '1', 'Upload-Metadata': metadata });
      assert.equal(created.status, 201, created.body);
      const location = String(created.headers.location);
      const head = await at(location, 'HEAD');
      assert.equal(head.headers['upload-defer-length'], '1');
      assert.equal(head.headers['upload-metadata'], metadata);
      assert.equal((await at(location, 'PATCH', { 'Upload-Offset': '0', ...STREAM }, Buffer.from('abc'))).status, 204);
      const done = await at(location, 'PATCH', { 'Upload-Offset': '3', 'Upload-Length': '6', ...STREAM }, Buffer.from('def'));
      assert.equal(done.status, 204, done.body);
      assert.equal((await files.get('defer', 'd.bin')).body, 'abcdef');

      // If-Match sent with the creation: the file changed meanwhile, so the completion is refused and nothing changes.
      const etag = String((await files.get('defer', 'd.bin')).headers.etag);
      const guarded = await create({ 'Upload-Length': '3', 'Upload-Metadata': metadata, 'If-Match': etag });
      const guardedAt = String(guarded.headers.location);
      assert.equal((await files.put('defer', 'd.bin', 'changed meanwhile')).status, 200);
      const refused = await at(guardedAt, 'PATCH', { 'Upload-Offset': '0', ...STREAM }, Buffer.from('xyz'));
      assertProblem(refused, 412, 'PRECONDITION_FAILED');
      assert.equal((await files.get('defer', 'd.bin')).body, 'changed meanwhile');
      // The upload ended with that refusal, and says so again.
      assert.equal((await at(guardedAt, 'HEAD')).status, 412);
      assertProblem(await at(guardedAt, 'PATCH', { 'Upload-Offset': '3', ...STREAM }, Buffer.alloc(0)), 412, 'PRECONDITION_FAILED');

      const tooLarge = await create({ 'Upload-Length': String(100 * MiB + 1), 'Upload-Metadata': metadata });
      assertProblem(tooLarge, 413, 'PAYLOAD_TOO_LARGE');
      for (const [headers, pattern] of [
        [{ 'Upload-Length': '3' }, /Upload-Metadata is required/],
        [{ 'Upload-Length': '3', 'Upload-Metadata': tusMetadata({ folder: 'x' }) }, /filename/],
        [{ 'Upload-Length': '3', 'Upload-Metadata': 'folder !!!,filename eA==' }, /not base64/],
        [{ 'Upload-Metadata': metadata }, /Upload-Length is required/],
        [{ 'Upload-Length': '3', 'Upload-Defer-Length': '1', 'Upload-Metadata': metadata }, /not both/],
        [{ 'Upload-Length': '-1', 'Upload-Metadata': metadata }, /whole number/],
        [{ 'Upload-Length': '3', 'Upload-Metadata': tusMetadata({ folder: 'x', filename: '../etc' }) }, /./],
      ] as const) {
        const answer = await create(headers as Record<string, string>);
        assert.equal(answer.status, 400, `${JSON.stringify(headers)}: ${answer.body}`);
        assert.match(answer.json().detail, pattern);
      }
    });

    test('an upload is useless to anyone else; termination removes it; the unfinished ones per admin are bounded', async () => {
      const metadata = tusMetadata({ folder: 'mine', filename: 'm.bin' });
      const created = await create({ 'Upload-Length': '10', 'Upload-Metadata': metadata });
      const location = String(created.headers.location);
      const member = await createMemberAdmin(svc.service.store, fixture, {
        permissions: ['files:read', 'files:write'],
        channels: [fixture.channel],
      });
      const other = await signIn(member.wallet, svc.config.auth.domains[0]!);
      for (const method of ['HEAD', 'PATCH', 'DELETE']) {
        const answer = await request(svc.baseUrl, location, {
          method,
          headers: { ...other, ...TUS, ...(method === 'PATCH' ? { 'Upload-Offset': '0', ...STREAM } : {}) },
          body: method === 'PATCH' ? Buffer.from('intruder') : undefined,
        });
        assert.equal(answer.status, 404, `${method} by another admin`);
      }
      assert.equal((await at(location, 'PATCH', { 'Upload-Offset': '0', ...STREAM }, Buffer.from('12345'))).status, 204);
      // The operator sees the unfinished uploads and what they hold, on every instance.
      const metrics = (await request(svc.baseUrl, '/metrics')).body;
      assert.equal(sample(metrics, 'wallet_admin_uploads_unfinished'), 1);
      assert.equal(sample(metrics, 'wallet_admin_uploads_unfinished_bytes'), 5);
      const terminated = await at(location, 'DELETE');
      assert.equal(terminated.status, 204);
      assert.equal((await at(location, 'HEAD')).status, 404);
      assertProblem(await at(location, 'DELETE'), 404, 'UPLOAD_NOT_FOUND');
      if (setup !== 'postgres+s3') assert.deepEqual(await staged(svc), []);

      const open: string[] = [];
      for (let i = 0; i < 5; i++) {
        const answer = await create({ 'Upload-Length': '10', 'Upload-Metadata': metadata });
        assert.equal(answer.status, 201, answer.body);
        open.push(String(answer.headers.location));
      }
      const sixth = await create({ 'Upload-Length': '10', 'Upload-Metadata': metadata });
      assertProblem(sixth, 429, 'RATE_LIMITED');
      for (const location of open) assert.equal((await at(location, 'DELETE')).status, 204);
    });

    test('an unfinished upload reserves its length under the quota; a deferred one is cut where the quota ends', async () => {
      const quota = (body: object) =>
        request(svc.baseUrl, `/api/channels/${fixture.channel.id}/quota`, {
          method: 'PUT',
          headers: { ...files.auth, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
      const used = (await request(svc.baseUrl, `/api/channels/${fixture.channel.id}/usage`, { headers: files.auth })).json().usage
        .bytes as number;
      assert.equal((await quota({ maxBytes: used + 1000 })).status, 200);
      try {
        const metadata = tusMetadata({ folder: 'q', filename: 'q.bin' });
        const first = await create({ 'Upload-Length': '800', 'Upload-Metadata': metadata });
        assert.equal(first.status, 201, first.body);
        // 800 reserved: 300 more do not fit, by PUT or by another upload.
        assertProblem(await create({ 'Upload-Length': '300', 'Upload-Metadata': metadata }), 507, 'QUOTA_EXCEEDED');
        assertProblem(await files.put('q', 'put.bin', Buffer.alloc(300)), 507, 'QUOTA_EXCEEDED');
        assert.equal((await at(String(first.headers.location), 'DELETE')).status, 204);
        const deferred = await create({ 'Upload-Defer-Length': '1', 'Upload-Metadata': metadata });
        const cut = await at(String(deferred.headers.location), 'PATCH', { 'Upload-Offset': '0', ...STREAM }, Buffer.alloc(1200));
        assertProblem(cut, 507, 'QUOTA_EXCEEDED');
        assert.equal((await at(String(deferred.headers.location), 'HEAD')).headers['upload-offset'], '0');
        await at(String(deferred.headers.location), 'DELETE');
      } finally {
        await quota({ maxBytes: null });
      }
    });
  });
}

/** What the disk staging holds (`<DATA_DIR>/uploads`). */
async function staged(svc: TestService): Promise<string[]> {
  return readdir(path.join(svc.config.dataDir, 'uploads')).catch(() => []);
}

describe('resumable uploads from a page of another origin', () => {
  const origin = 'https://app.example.com';
  const preflight = (svc: TestService) =>
    request(svc.baseUrl, '/api/channels/main/uploads/5a59d229607763bd22448201d3ad300c', {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'PATCH',
        'Access-Control-Request-Headers': 'tus-resumable,upload-offset,content-type,x-wal',
      },
    });

  test('by default the tus headers are neither allowed nor exposed: the contract stays as it is', async (t) => {
    const svc = await startTestService('sqlite', { env: { CORS_ORIGINS: origin } });
    t.after(() => svc.close());
    assert.equal((await preflight(svc)).status, 403);
  });

  test('CORS_EXTRA_ALLOW_HEADERS and CORS_EXTRA_EXPOSE_HEADERS open them, as docs/uploads.md says', async (t) => {
    const svc = await startTestService('sqlite', {
      env: {
        CORS_ORIGINS: origin,
        CORS_EXTRA_ALLOW_HEADERS: 'Tus-Resumable,Upload-Length,Upload-Offset,Upload-Metadata,Upload-Checksum,Upload-Defer-Length',
        CORS_EXTRA_EXPOSE_HEADERS: 'Tus-Resumable,Upload-Offset,Upload-Length,Upload-Metadata,Upload-Expires,Location,ETag',
      },
    });
    t.after(() => svc.close());
    const allowed = await preflight(svc);
    assert.equal(allowed.status, 200);
    assert.match(String(allowed.headers['access-control-allow-headers']), /Upload-Offset/);
    const fixture = await createTenantFixture(svc.service.store, 'Other origin');
    const auth = await signIn(fixture.ownerWallet, svc.config.auth.domains[0]!);
    const created = await request(svc.baseUrl, `/api/channels/${fixture.channel.id}/uploads`, {
      method: 'POST',
      headers: { ...auth, ...TUS, Origin: origin, 'Upload-Length': '3', 'Upload-Metadata': tusMetadata({ folder: 'x', filename: 'y' }) },
    });
    assert.equal(created.status, 201, created.body);
    assert.equal(created.headers['access-control-allow-origin'], origin);
    const exposed = String(created.headers['access-control-expose-headers'])
      .split(',')
      .map((name) => name.trim());
    for (const name of ['Location', 'Upload-Offset', 'Upload-Expires', 'Tus-Resumable'])
      assert.ok(exposed.includes(name), `${name} in ${exposed}`);
  });
});
