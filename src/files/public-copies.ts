import type { BlobStorage } from '../blobs/blob-storage.ts';
import type { FileLocks } from '../locks/file-locks.ts';
import type { Logger } from '../logging/logger.ts';
import type { LiveFiles } from '../model/files.ts';
import type { FileVersion, KeptVersions } from '../model/versions.ts';
import type { PublicCopyDue, WriteJournal } from '../model/write-journal.ts';
import { fileLockKey, legacyLiveKey, newBlobKey } from './blob-layout.ts';
import { downloadDisposition } from './download-disposition.ts';

type FileAt = Pick<PublicCopyDue, 'channelId' | 'folder' | 'filename'>;

/** A storage that can publish (S3). */
export type PublishingBlobs = BlobStorage & Required<Pick<BlobStorage, 'publish'>>;
export const canPublish = (blobs: BlobStorage): blobs is PublishingBlobs => blobs.publish !== undefined;

/** Where a file's public copy is: its path in the channel, as the previous releases kept the live file itself. */
export const publicCopyKey = (file: FileAt) => legacyLiveKey(file.channelId, file.folder, file.filename);

/**
 * With S3_PUBLIC_BASE_URL, every live file also has a copy at a predictable key of the bucket,
 * files/<channel>/<folder>/<filename>, which a CDN or a public bucket serves to anyone, and which
 * a restore's URL names. The record stays the truth (the service never reads the copy): each
 * write's own transaction queues the file (public_copies_due), the writer brings the copy in line
 * right after, under the file's lock, and what it could not do (the store failed, the process
 * died) is done by `catchUp`, which the scheduler runs every minute. A copy is thus behind its
 * record only for that long at worst, and never holds bytes no record named.
 */
export class PublicCopies {
  constructor(
    private readonly blobs: PublishingBlobs,
    private readonly catalog: KeptVersions & LiveFiles & WriteJournal,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /** After a write, under the file's lock: the copy follows the record. A failure is left to catchUp. */
  async follow(file: FileAt): Promise<void> {
    try {
      for (const due of await this.catalog.publicCopiesDue(file)) await this.bringInLine(due);
    } catch (err) {
      this.logger.warn({ err, ...file }, 'the public copy of a file could not follow its record yet; it is tried again within a minute');
    }
  }

  /** Every copy still behind its record, each under its file's lock; returns how many were brought in line. */
  async catchUp(locks: FileLocks): Promise<number> {
    let done = 0;
    for (const due of await this.catalog.publicCopiesDue()) {
      await locks.runExclusive(fileLockKey(due.channelId, due.folder, due.filename), () => this.bringInLine(due));
      done++;
    }
    return done;
  }

  private async bringInLine(due: PublicCopyDue): Promise<void> {
    const record = await this.catalog.getFile(due.channelId, due.folder, due.filename);
    const key = publicCopyKey(due);
    // The previous release kept live bytes at this very key: once replaced or deleted, they are a
    // version's, and move to a key of their own before the copy takes the place.
    const holder = await this.catalog.versionHoldingBlob(due, key);
    if (holder !== undefined) await this.moveAway(holder, key);
    if (record === undefined) await this.blobs.delete(key);
    // A record of the previous release names that very key: its bytes are there already.
    else if (record.blobKey !== key) {
      await this.blobs.publish(record.blobKey, key, {
        contentType: record.contentType,
        contentDisposition: downloadDisposition(record.filename, record.contentType),
      });
    }
    await this.catalog.endPublicCopyDue(due);
  }

  /** Journalled as a write is: bytes copied for a move that is never recorded are removed by write-journal.ts. */
  private async moveAway(version: FileVersion, from: string): Promise<void> {
    const to = newBlobKey(version.channelId);
    const writeId = await this.catalog.journalWrite({ ...version, blobKey: to, startedAt: Date.now() });
    await this.blobs.copy(from, to, { expectedSha256: version.sha256, contentType: version.contentType });
    if (!(await this.catalog.moveVersionBlob({ versionId: version.id, from, to, writeId }))) {
      throw new Error(`version ${version.id} changed while its bytes were being moved away from ${from}`);
    }
  }
}
