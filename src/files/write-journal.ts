import type { Logger } from '../logging/logger.ts';
import type { BlobStorage } from '../storage/blob-storage.ts';
import { sha256OfStream } from '../storage/sha256-meter.ts';
import type { FileCatalog, PendingWrite } from '../store/file-catalog-types.ts';
import { liveKey } from './blob-layout.ts';

/**
 * A crash between a live file's rename and the update of its record leaves the record describing
 * the old bytes (or a deleted file still on disk). At start-up, every write still journalled is
 * settled by what storage actually holds: the record is made to match the live blob (hashed, so it
 * is the truth whichever side of the rename the crash fell), or removed with it.
 */
async function settlePendingWrites(blobs: BlobStorage, catalog: FileCatalog, now: () => number = Date.now): Promise<number> {
  const pending = await catalog.pendingWrites();
  for (const write of pending) {
    await settle(blobs, catalog, write, now());
    await catalog.endWrite(write.id);
  }
  return pending.length;
}

async function settle(blobs: BlobStorage, catalog: FileCatalog, write: PendingWrite, now: number): Promise<void> {
  const { channelId, folder, filename } = write;
  const key = liveKey(channelId, folder, filename);
  const record = await catalog.getFile(channelId, folder, filename);
  if (write.sha256 === null) {
    // An interrupted delete: its version is kept, so finishing it loses nothing.
    if (record) await catalog.deleteFile(channelId, folder, filename, now);
    await blobs.delete(key);
    return;
  }
  const live = await hashBlob(blobs, key);
  if (live === undefined) {
    if (record) await catalog.deleteFile(channelId, folder, filename, now);
    return;
  }
  if (record?.sha256 === live.sha256) return;
  const contentType = live.sha256 === write.sha256 ? write.contentType! : (record?.contentType ?? 'application/octet-stream');
  await catalog.putFile({ channelId, folder, filename, size: live.size, sha256: live.sha256, contentType, updatedAt: now });
}

async function hashBlob(blobs: BlobStorage, key: string): Promise<{ sha256: string; size: number } | undefined> {
  const body = await blobs.get(key);
  return body === undefined ? undefined : sha256OfStream(body);
}

/**
 * What every process that writes files does before its first write: temporary files of writes a
 * crash interrupted go, and records of journalled writes are settled by what storage holds.
 */
export async function recoverInterruptedWrites(blobs: BlobStorage, catalog: FileCatalog, logger: Pick<Logger, 'warn'>): Promise<void> {
  const leftovers = await blobs.removeLeftovers();
  if (leftovers > 0) logger.warn({ leftovers }, 'removed temporary files left by an interrupted write');
  const settled = await settlePendingWrites(blobs, catalog);
  if (settled > 0) logger.warn({ settled }, 'settled file records of writes interrupted by a crash');
}
