import assert from 'node:assert/strict';
import type { BlobStorage } from '../../src/blobs/blob-storage.ts';
import type { FileCatalog } from '../../src/model/metadata-store.ts';
import { sha256 } from './files.ts';

/**
 * The invariant of the write path, checked from outside: every live record of the channel and
 * every kept version of the named files describes exactly the bytes its blob holds (size and
 * sha256), and nothing stored under the channel's blobs is named by neither (no stranded bytes).
 * `folders` lists where the files are, so that deleted ones' versions are looked at too.
 */
export async function assertChannelConsistent(
  catalog: FileCatalog,
  blobs: BlobStorage,
  channelId: string,
  files: { folder: string; filename: string }[],
  when: string,
): Promise<void> {
  const named = new Set<string>();
  const check = async (what: string, key: string, size: number, digest: string) => {
    named.add(key);
    const body = await blobs.get(key);
    assert.ok(body, `${when}: ${what} names ${key}, which holds nothing`);
    const bytes = Buffer.concat(await body.toArray());
    assert.equal(bytes.length, size, `${when}: ${what} declares ${size} bytes, its blob holds ${bytes.length}`);
    assert.equal(sha256(bytes), digest, `${when}: ${what} declares other bytes than its blob holds`);
  };
  for (const { folder, filename } of files) {
    const live = await catalog.getFile(channelId, folder, filename);
    if (live) await check(`the record of ${folder}/${filename}`, live.blobKey, live.size, live.sha256);
    const versions = (await catalog.listVersions(channelId, folder, filename, { limit: 1000 })).items;
    for (const version of versions) {
      if (version.blobKey !== null)
        await check(`version ${version.id} of ${folder}/${filename}`, version.blobKey, version.size, version.sha256);
    }
  }
  const stranded: string[] = [];
  for await (const blob of blobs.list(`objects/${channelId}`)) if (!named.has(blob.key)) stranded.push(blob.key);
  assert.deepEqual(stranded, [], `${when}: stored bytes that no record or version names`);
  assert.deepEqual(await catalog.pendingWrites(), [], `${when}: journal entries left`);
}
