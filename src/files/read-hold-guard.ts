import type { OffsiteRecords } from '../model/offsite.ts';
import type { ReadHolds } from '../model/read-holds.ts';
import { channelOfBlobKey } from './blob-layout.ts';
import type { BlobReleaseGuard } from './retention.ts';

/**
 * What retention asks before it removes a blob no record names any more: not while an archive
 * holds the blob's channel (src/model/read-holds.ts: it may be streaming those very bytes, named by
 * records it read before they were pruned), nor, with an off-site copy, before the target holds it.
 * A blob let go of too early waits in the deferred deletes (the table is there with or without an
 * off-site copy) and is removed by a later run.
 */
export function readHoldGuard(
  holds: Pick<ReadHolds, 'channelReadHeld'>,
  deferrals: Pick<OffsiteRecords, 'deferBlobDelete' | 'deferredBlobDeletes' | 'forgetDeferredDelete'>,
  offsite: BlobReleaseGuard | undefined,
  now: () => number = Date.now,
): BlobReleaseGuard {
  return {
    async blobReleasable(blobKey) {
      const channelId = channelOfBlobKey(blobKey);
      if (channelId !== undefined && (await holds.channelReadHeld(channelId, now()))) return false;
      return offsite === undefined || offsite.blobReleasable(blobKey);
    },
    deferBlobDelete: (blobKey, at) => deferrals.deferBlobDelete(blobKey, at),
    deferredBlobDeletes: (limit) => deferrals.deferredBlobDeletes(limit),
    forgetDeferredDelete: (blobKey) => deferrals.forgetDeferredDelete(blobKey),
  };
}
