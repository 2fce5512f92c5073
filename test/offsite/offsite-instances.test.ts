import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, test } from 'node:test';
import { parseIdentityFile } from '../../src/age/age-keys.ts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { filePath } from '../../src/files/file-path.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { readCopy } from '../../src/offsite/copy-reader.ts';
import { rebuildFromCopy } from '../../src/offsite/rebuild.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { ageKeys, type OffsiteKeys, offsiteDir, recordedState } from '../helpers/offsite.ts';
import { createStorage, type Storage, startTestService, type TestService } from '../helpers/test-service.ts';

/**
 * Two instances on one PostgreSQL database ship to one target (docs/offsite.md): one holds the
 * lease at a time, so the copy is one chain, no segment shipped twice, whichever instance took the
 * writes; and it holds exactly what the database does.
 */
let keys: OffsiteKeys;
let copy: Awaited<ReturnType<typeof offsiteDir>>;
let storage: Storage;
let first: TestService;
let second: TestService;
before(async () => {
  keys = await ageKeys();
  copy = await offsiteDir();
  storage = await createStorage('postgres');
  const env = { OFFSITE_URL: copy.url, OFFSITE_RECIPIENTS: keys.recipient, OFFSITE_SHIP_INTERVAL: '50' };
  first = await startTestService('postgres', { storage, env });
  second = await startTestService('postgres', { storage, env });
});
after(async () => {
  await first.close();
  await second.close();
  await storage.drop();
  await copy.drop();
  await rm(keys.dir, { recursive: true, force: true });
});

test('two instances, one lease: one chain of segments, none twice, and it holds exactly the database', async () => {
  const home = await createTenantFixture(first.service.store, 'Shared');
  const writes = [];
  for (let i = 0; i < 30; i++) {
    const svc = i % 2 === 0 ? first : second;
    writes.push(
      svc.service.files.files.put(
        home.channel,
        { adminId: home.owner.id },
        filePath('docs', `f${i % 7}.txt`),
        Readable.from([Buffer.from(`bytes ${i}`)]),
        'text/plain',
      ),
    );
    if (i % 5 === 4) await Promise.all(writes.splice(0));
  }
  await Promise.all(writes);
  await first.service.offsite.shipper!.drain();
  await second.service.offsite.shipper!.drain();
  await first.service.offsite.shipper!.drain();
  assert.equal((await first.service.store.offsite.backlog()).changes, 0);

  const generations = await readdir(path.join(copy.dir, 'generations'));
  const segments = (await Promise.all(generations.map((g) => readdir(path.join(copy.dir, 'generations', g))))).flat();
  assert.ok(segments.length >= 2, `segments: ${segments.length}`);
  const report = await readCopy(first.service.offsite.shipper!.target, {
    identities: parseIdentityFile(await readFile(keys.identityFile, 'utf8')),
    checkBlobs: true,
  });
  assert.equal(report.failure, undefined);
  assert.equal(report.generations.length, 1, 'one generation: the second instance began none of its own');
  const seqs = report.generations[0]!.segments.flatMap((segment) => segment.changes.map((change) => change.s));
  assert.equal(new Set(seqs).size, seqs.length, 'no change shipped twice');
  const blobs = await openBlobStorage(first.config);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-rebuilt-'));
  try {
    const live = await recordedState(first.service.store, blobs);
    assert.equal(live.tables.files!.length, 7);
    await rebuildFromCopy({
      target: first.service.offsite.shipper!.target,
      identities: parseIdentityFile(await readFile(keys.identityFile, 'utf8')),
      destination: { databaseUrl: undefined, dataDir: dir, storage: { kind: 'disk', s3: undefined } },
      operator: 'test',
      logger: { warn() {}, error() {} },
    });
    const rebuilt = await openMetadataStore({ dataDir: dir });
    const rebuiltBlobs = await openBlobStorage({ dataDir: dir });
    try {
      assert.deepEqual(await recordedState(rebuilt, rebuiltBlobs), live);
    } finally {
      await rebuiltBlobs.close();
      await rebuilt.close();
    }
  } finally {
    await blobs.close();
    await rm(dir, { recursive: true, force: true });
  }
});
