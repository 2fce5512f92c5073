import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseIdentityFile, parseRecipients } from '../../src/age/age-keys.ts';
import { openBlobStorage } from '../../src/blobs/open-blob-storage.ts';
import { openMetadataStore } from '../../src/metadata/open-metadata-store.ts';
import { readCopy } from '../../src/offsite/copy-reader.ts';
import { rebuildFromCopy } from '../../src/offsite/rebuild.ts';
import { OffsiteShipper } from '../../src/offsite/shipper.ts';
import { DirectoryTarget } from '../../src/offsite/target/directory-target.ts';
import type { OffsiteTarget } from '../../src/offsite/target/offsite-target.ts';
import { createTenantFixture } from '../helpers/fixtures.ts';
import { ageKeys, offsiteDir, recordedState } from '../helpers/offsite.ts';

const LEASE_MS = 100;
const SILENT = { warn: () => undefined, error: () => undefined };

/**
 * One instance sends a segment for longer than its lease (a slow target, a blob of gigabytes):
 * another takes the lease over, ships that segment and the next. When the first one's send
 * returns, what it records must not move the state back to its segment: the next segment would be
 * "shipped" onto a name the target already holds (write-once, so the target keeps the other
 * instance's), and the changes marked for it deleted as shipped, lost to the copy.
 */
test('a shipper whose lease lapsed mid-segment does not move the state back once another has shipped past it', async (t) => {
  const keys = await ageKeys();
  t.after(() => rm(keys.dir, { recursive: true, force: true }));
  const copy = await offsiteDir();
  t.after(() => copy.drop());
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-lease-'));
  t.after(() => rm(dataDir, { recursive: true, force: true }));
  const rebuiltDir = await mkdtemp(path.join(os.tmpdir(), 'wallet-admin-rebuilt-'));
  t.after(() => rm(rebuiltDir, { recursive: true, force: true }));
  const disk = { kind: 'disk' as const, s3: undefined };
  const store = await openMetadataStore({ dataDir });
  t.after(() => store.close());
  const blobs = await openBlobStorage({ dataDir, storage: disk });
  t.after(() => blobs.close());
  await store.offsite.installCapture();

  const directory = new DirectoryTarget(copy.dir);
  let slow = false;
  const slowTarget: OffsiteTarget = {
    description: directory.description,
    async putNew(name, body, options) {
      // Longer than the lease: another instance takes over meanwhile.
      if (slow && name.startsWith('generations/')) await sleep(LEASE_MS * 4);
      return directory.putNew(name, body, options);
    },
    get: (name) => directory.get(name),
    head: (name) => directory.head(name),
    list: (prefix) => directory.list(prefix),
    remove: (name) => directory.remove(name),
    removeLeftovers: (olderThanMs) => directory.removeLeftovers(olderThanMs),
    close: async () => undefined,
  };
  const common = {
    store,
    blobs,
    recipients: parseRecipients(keys.recipient),
    logger: SILENT,
    intervalMs: 3_600_000,
    leaseMs: LEASE_MS,
    snapshotEveryMs: 86_400_000,
  };
  const first = new OffsiteShipper({ ...common, target: slowTarget });
  const second = new OffsiteShipper({ ...common, target: directory });

  await createTenantFixture(store, 'One');
  await first.drain();
  await sleep(LEASE_MS * 1.5);
  await createTenantFixture(store, 'Two');
  slow = true;
  const late = first.drain();
  await sleep(LEASE_MS * 2);
  // The first instance is sending the segment of 'Two'; its lease has lapsed.
  await createTenantFixture(store, 'Three');
  await second.drain();
  const ahead = (await store.offsite.state())!.segment!;
  await late;
  assert.equal((await store.offsite.state())!.segment, ahead, 'the late instance left the state where the other had brought it');
  await sleep(LEASE_MS * 1.5);
  await createTenantFixture(store, 'Four');
  await second.drain();

  const identities = parseIdentityFile(await readFile(keys.identityFile, 'utf8'));
  const report = await readCopy(directory, { identities, checkBlobs: true });
  assert.equal(report.failure, undefined);
  await rebuildFromCopy({
    target: directory,
    identities,
    destination: { dataDir: rebuiltDir, databaseUrl: undefined, storage: disk },
    operator: 'lease test',
    logger: SILENT,
  });
  const again = await openMetadataStore({ dataDir: rebuiltDir });
  const rebuiltBlobs = await openBlobStorage({ dataDir: rebuiltDir, storage: disk });
  try {
    const live = await recordedState(store, blobs);
    const back = await recordedState(again, rebuiltBlobs);
    assert.equal(live.tables.tenants!.length, 4);
    for (const table of Object.keys(live.tables)) assert.deepEqual(back.tables[table], live.tables[table], `table ${table}`);
  } finally {
    await rebuiltBlobs.close();
    await again.close();
  }
});
