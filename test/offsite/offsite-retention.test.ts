import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { filePath } from '../../src/files/file-path.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { ageKeys, type OffsiteKeys, offsiteDir } from '../helpers/offsite.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

/**
 * With an off-site copy, retention removes a blob only once the target holds it (docs/offsite.md):
 * a version pruned before the shipper sent its bytes keeps them, and a later run removes them once
 * they are at the target. Without this, the copy would name bytes that exist nowhere.
 */
let keys: OffsiteKeys;
let copy: Awaited<ReturnType<typeof offsiteDir>>;
let svc: TestService;
before(async () => {
  keys = await ageKeys();
  copy = await offsiteDir();
  svc = await startTestService('sqlite', {
    // The timer never fires again after the first round: the test ships when it says so.
    env: { OFFSITE_URL: copy.url, OFFSITE_RECIPIENTS: keys.recipient, OFFSITE_SHIP_INTERVAL: '3600000', VERSION_KEEP_DAYS: '0' },
  });
});
after(async () => {
  await svc.close();
  await copy.drop();
  await rm(keys.dir, { recursive: true, force: true });
});

test('a replaced version pruned before it was shipped keeps its bytes until the target holds them', async () => {
  const shipper = svc.service.offsite.shipper!;
  await shipper.drain();
  const store = svc.service.store;
  const home = await createTenantFixture(store, 'Retained');
  const put = (text: string) =>
    svc.service.files.files.put(
      home.channel,
      { adminId: home.owner.id },
      filePath('docs', 'a.txt'),
      Readable.from([Buffer.from(text)]),
      'text/plain',
    );
  await put('first bytes');
  await put('second bytes');
  await put('third bytes');
  // The older of the two versions the replacements kept: the newest of a file always stays.
  const replaced = (await store.offsite.rows('file_versions'))
    .filter((row) => row.kind === 'replaced')
    .sort((a, b) => Number(a.created_at) - Number(b.created_at))[0];
  assert.ok(replaced, 'the replacements kept versions');
  await new Promise((resolve) => setTimeout(resolve, 5));
  const key = String(replaced.blob_key);
  const blobs = await openBlobStorage(svc.config);
  try {
    await svc.service.files.retention.apply(home.channel);
    assert.equal(
      (await store.offsite.rows('file_versions')).some((row) => row.blob_key === key),
      false,
      'retention pruned the version',
    );
    assert.ok(await blobs.stat(key), 'its bytes stay: the target does not hold them yet');
    assert.deepEqual(await store.offsite.deferredBlobDeletes(10), [key]);

    await shipper.drain();
    assert.ok(await store.offsite.shippedBlob(key), 'the shipper sent the bytes the queued insert names');
    await svc.service.files.retention.apply(home.channel);
    assert.equal(await blobs.stat(key), undefined, 'once at the target, a later run removes them');
    assert.deepEqual(await store.offsite.deferredBlobDeletes(10), []);
  } finally {
    await blobs.close();
  }
});
