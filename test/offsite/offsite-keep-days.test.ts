import assert from 'node:assert/strict';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { parseIdentityFile } from '../../src/age/age-keys.ts';
import { filePath } from '../../src/files/file-path.ts';
import { readCopy } from '../../src/offsite/copy-reader.ts';
import { pruneGenerations } from '../../src/offsite/keep-days.ts';
import { checkCopy } from '../../src/offsite/offsite-check.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { ageKeys, type OffsiteKeys, offsiteDir } from '../helpers/offsite.ts';
import { startTestService, type TestService } from '../helpers/test-service.ts';

const DAY = 86_400_000;
const quiet = { warn() {}, error() {} };

/**
 * OFFSITE_KEEP_DAYS (docs/offsite.md): an old generation goes whole, only once a newer snapshot
 * has passed a check, and with it the blobs only it named; what is left verifies on its own.
 */
let keys: OffsiteKeys;
let copy: Awaited<ReturnType<typeof offsiteDir>>;
let svc: TestService;
before(async () => {
  keys = await ageKeys();
  copy = await offsiteDir();
  svc = await startTestService('sqlite', {
    env: { OFFSITE_URL: copy.url, OFFSITE_RECIPIENTS: keys.recipient, OFFSITE_SHIP_INTERVAL: '3600000', VERSION_KEEP_DAYS: '0' },
  });
});
after(async () => {
  await svc.close();
  await copy.drop();
  await rm(keys.dir, { recursive: true, force: true });
});

test('an old generation is removed whole, after a newer snapshot passed a check, with the blobs only it named', async () => {
  const { store } = svc.service;
  const shipper = svc.service.offsite.shipper!;
  const target = shipper.target;
  const home = await createTenantFixture(store, 'Kept');
  const put = (text: string) =>
    svc.service.files.files.put(
      home.channel,
      { adminId: home.owner.id },
      filePath('docs', 'a.txt'),
      Readable.from([Buffer.from(text)]),
      'text/plain',
    );
  await put('one');
  await put('two');
  await put('three');
  await shipper.drain();
  // The oldest replaced version goes (VERSION_KEEP_DAYS=0): its bytes are at the target, so retention removes them here.
  await new Promise((resolve) => setTimeout(resolve, 5));
  await svc.service.files.retention.apply(home.channel);
  await shipper.drain();
  const first = (await store.offsite.state())!.generation!;
  await store.offsite.requireSnapshot();
  await shipper.drain();
  const second = (await store.offsite.state())!.generation!;
  assert.notEqual(second, first);
  const blobsBefore = (await readdir(path.join(copy.dir, 'blobs'))).length;

  const later = Date.now() + 3 * DAY;
  const unchecked = await pruneGenerations({ store, target, keepDays: 1, lockDays: 0, logger: quiet, now: later });
  assert.deepEqual(unchecked.generations, [], 'nothing goes before a newer snapshot has passed a check');
  assert.equal((await checkCopy(store, target, quiet)).ok, true);
  const young = await pruneGenerations({ store, target, keepDays: 30, lockDays: 0, logger: quiet, now: later });
  assert.deepEqual(young.generations, [], 'nor while younger than OFFSITE_KEEP_DAYS');
  const locked = await pruneGenerations({ store, target, keepDays: 1, lockDays: 30, logger: quiet, now: later });
  assert.deepEqual(locked.generations, [], 'nor while under OFFSITE_LOCK_DAYS');

  const pruned = await pruneGenerations({ store, target, keepDays: 1, lockDays: 0, logger: quiet, now: later });
  assert.deepEqual(pruned.generations, [first]);
  assert.deepEqual(await readdir(path.join(copy.dir, 'generations')), [second]);
  assert.equal(
    (await readdir(path.join(copy.dir, 'blobs'))).length,
    blobsBefore - 1,
    "the pruned version's bytes went with the only generation that named them",
  );
  const { readFile } = await import('node:fs/promises');
  const report = await readCopy(target, { identities: parseIdentityFile(await readFile(keys.identityFile, 'utf8')), checkBlobs: true });
  assert.equal(report.failure, undefined);
  assert.equal(report.generations.length, 1);
});
