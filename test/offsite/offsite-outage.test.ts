import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseIdentityFile } from '../../src/age/age-keys.ts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { parseOffsiteUrl } from '../../src/config/offsite-url.ts';
import { filePath } from '../../src/files/file-path.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { readCopy } from '../../src/offsite/copy-reader.ts';
import { type OffsiteStatus, offsiteStatus } from '../../src/offsite/offsite-status.ts';
import { rebuildFromCopy } from '../../src/offsite/rebuild.ts';
import { openOffsiteTarget } from '../../src/offsite/target/open-offsite-target.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { request } from '../helpers/http.ts';
import { sample } from '../helpers/metrics-text.ts';
import { ageKeys, recordedState } from '../helpers/offsite.ts';
import { startTestS3 } from '../helpers/s3-server.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { startTestService } from '../helpers/test-service.ts';

/** The off-site bucket's credentials (s3rver takes any secret for its S3RVER key): neither may be in an error. */
const ACCESS_KEY = 'S3RVER';
const SECRET = `offsite-outage-secret-${randomBytes(6).toString('hex')}`;
const SILENT = { warn: () => undefined, error: () => undefined };

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms; last: ${JSON.stringify(value)}`);
    await sleep(25);
  }
}

/**
 * The off-site bucket becomes unreachable (docs/offsite.md, "Status"): the connection carrying a
 * blob is cut mid-upload, and then nothing answers. The service goes on taking writes; the lag
 * grows where an operator looks (status and /metrics) with the error named, and no credential in
 * it; once the bucket is reachable again the shipper catches up by itself, and a rebuild from the
 * bucket equals the live state. Nothing that crossed the network was plaintext.
 */
test('a target outage: writes go on, the lag grows and is reported, the shipper catches up after it, and the copy rebuilds to the live state', async (t) => {
  const keys = await ageKeys();
  t.after(() => rm(keys.dir, { recursive: true, force: true }));
  // The copy's bucket, on an S3 server of its own; s3rver stores only whole bodies, as S3 does.
  const bucket = await startTestS3(undefined, { wholeBodies: true });
  t.after(() => bucket.close());
  const proxy = await startTcpProxy(Number(new URL(bucket.endpoint).port));
  t.after(() => proxy.close());
  const url = `s3://${bucket.bucket}/copy`;
  const svc = await startTestService('sqlite', {
    env: {
      OFFSITE_URL: url,
      OFFSITE_RECIPIENTS: keys.recipient,
      OFFSITE_SHIP_INTERVAL: '100',
      OFFSITE_S3_ENDPOINT: proxy.endpoint,
      OFFSITE_S3_FORCE_PATH_STYLE: 'true',
      OFFSITE_S3_ACCESS_KEY_ID: ACCESS_KEY,
      OFFSITE_S3_SECRET_ACCESS_KEY: SECRET,
    },
  });
  let closed = false;
  t.after(() => (closed ? undefined : svc.close()));
  const store = svc.service.store;
  const fixture = await createTenantFixture(store, 'Outage');
  const actor = { adminId: fixture.owner.id };
  const put = (name: string, bytes: Buffer | string) =>
    svc.service.files.files.put(
      fixture.channel,
      actor,
      filePath('ledger', name),
      Readable.from([Buffer.from(bytes)]),
      'application/octet-stream',
    );
  const status = () => offsiteStatus(store);
  const caughtUp = (timeoutMs: number) =>
    until(
      'the copy caught up',
      status,
      (s: OffsiteStatus) => s.segment !== null && s.changesPending === 0 && s.lagSeconds === 0,
      timeoutMs,
    );
  const gauges = async () => {
    const text = (await request(svc.baseUrl, '/metrics')).body;
    return { lag: sample(text, 'wallet_admin_offsite_lag_seconds'), pending: sample(text, 'wallet_admin_offsite_changes_pending') };
  };

  const big = randomBytes(1024 * 1024);
  const texts = {
    'q1-report.txt': 'quarterly figures, first draft',
    'q2-report.txt': 'quarterly figures, second quarter',
    'payroll.csv': 'alice,1000\nbob,2000',
    'minutes.txt': 'minutes of the outage meeting',
  };

  // Shipping works: the snapshot and the first changes are at the target.
  await put('q1-report.txt', texts['q1-report.txt']);
  await put('payroll.csv', texts['payroll.csv']);
  await caughtUp(5000);

  // The outage begins mid-upload: 200 kB into the megabyte of the blob's upload, every connection is reset.
  const cut = proxy.cutAfter(200_000);
  await put('big.bin', big);
  await Promise.race([cut, sleep(5000).then(() => assert.fail('the cut never came: nothing was shipped'))]);
  assert.ok(proxy.cutMidRequest >= 1, 'the cut fell while the shipper was sending');

  // Writes go on, and succeed, while nothing reaches the target.
  const outageBegan = Date.now();
  await put('q2-report.txt', texts['q2-report.txt']);
  await put('q1-report.txt', `${texts['q1-report.txt']}, revised`);
  await svc.service.files.files.delete(fixture.channel, actor, filePath('ledger', 'payroll.csv'));
  await put('minutes.txt', texts['minutes.txt']);
  assert.ok(Date.now() - outageBegan < 2000, 'the writes did not wait for the target');

  const failing = await until('an error was noted', status, (s) => s.lastError !== null && s.changesPending > 0, 5000);
  const message = failing.lastError!.message;
  assert.match(message, new RegExp(`s3://${bucket.bucket}/copy`), 'the error names the target');
  assert.ok(!message.includes(SECRET) && !message.includes(ACCESS_KEY), `the error holds no credential: ${message}`);
  const first = await status();
  assert.ok(first.lagSeconds > 0, 'the lag shows');
  const early = await gauges();
  assert.ok(early.lag! > 0 && early.pending! > 0, `/metrics shows the lag: ${JSON.stringify(early)}`);
  await sleep(600);
  const later = await status();
  assert.ok(later.lagSeconds >= first.lagSeconds + 0.5, `the lag grows: ${first.lagSeconds} then ${later.lagSeconds}`);
  assert.ok(later.changesPending >= first.changesPending);
  assert.ok(later.lastError !== null);
  assert.ok((await gauges()).lag! >= early.lag! + 0.5, 'and on /metrics');

  // The target is back: the shipper catches up by itself, and the error is cleared.
  await proxy.forward();
  const recovered = await caughtUp(8000);
  assert.equal(recovered.lastError, null);
  assert.deepEqual(await gauges(), { lag: 0, pending: 0 });

  const blobs = await openBlobStorage(svc.config);
  const live = await recordedState(store, blobs);
  await blobs.close();
  closed = true;
  await svc.close();
  assert.equal(live.tables.files!.length, 4, 'four live files to compare');

  // Nothing that crossed the network to the target was plaintext: no content, no name.
  const sent = proxy.sent();
  assert.ok(sent.reduce((n, bytes) => n + bytes.length, 0) > big.length, 'the big blob went through the proxy');
  const secrets = [...Object.entries(texts).flat(), 'revised', 'ledger', fixture.tenant.name];
  const bigSamples = [0, 333_333, big.length - 64].map((at) => big.subarray(at, at + 64));
  for (const bytes of sent) {
    for (const secret of secrets) assert.equal(bytes.includes(secret), false, `the target was sent ${secret} in plaintext`);
    for (const piece of bigSamples) assert.equal(bytes.includes(piece), false, 'the target was sent the big file in plaintext');
  }

  // A rebuild from the bucket alone (directly, not through the proxy) equals the live state.
  const target = await openOffsiteTarget(parseOffsiteUrl(url), {
    endpoint: bucket.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    accessKeyId: ACCESS_KEY,
    secretAccessKey: SECRET,
    timeoutSeconds: 10,
    lockDays: 0,
  });
  const identities = parseIdentityFile(await readFile(keys.identityFile, 'utf8'));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-rebuilt-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  try {
    const report = await readCopy(target, { identities, checkBlobs: true, head: recovered.head! });
    assert.equal(report.failure, undefined, 'the copy verifies up to the head status shows');
    await rebuildFromCopy({
      target,
      identities,
      destination: { dataDir, databaseUrl: undefined, storage: { kind: 'disk', s3: undefined } },
      operator: 'outage test',
      logger: SILENT,
    });
  } finally {
    await target.close();
  }
  const again = await openMetadataStore({ dataDir });
  const rebuiltBlobs = await openBlobStorage({ dataDir, storage: { kind: 'disk', s3: undefined } });
  try {
    const back = await recordedState(again, rebuiltBlobs);
    for (const table of Object.keys(live.tables)) assert.deepEqual(back.tables[table], live.tables[table], `table ${table}`);
    assert.deepEqual(back.blobs, live.blobs);
  } finally {
    await rebuiltBlobs.close();
    await again.close();
  }
});
