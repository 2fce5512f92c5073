import type { BlobStorage } from '../blobs/blob-storage.ts';
import type { Logger } from '../logging/logger.ts';
import type { Backups } from '../model/backups.ts';

const DAY_MS = 86_400_000;

export interface RetentionRules {
  /** Backups always kept, newest first (BACKUP_KEEP_LAST). */
  keepLast: number;
  /** Backups younger than this many days are kept too (BACKUP_KEEP_DAYS). */
  keepDays: number;
  /** Versions kept by replacements, restores and deletes, in days (VERSION_KEEP_DAYS). */
  versionKeepDays: number;
}

/**
 * Removes what the rules no longer keep: a backup goes once it is neither among the newest
 * `keepLast` nor younger than `keepDays` nor locked (a legal hold, or a lock before its date:
 * docs/backup-locks.md), and every version a remaining backup names stays with it. The newest version of every file always stays (the
 * catalog guarantees it), so a file deleted long ago can still be brought back.
 */
export class Retention {
  constructor(
    private readonly blobs: BlobStorage,
    private readonly catalog: Backups,
    private readonly rules: RetentionRules,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async apply(channelId: string): Promise<{ blobsRemoved: number }> {
    const now = this.now();
    const unreferenced = await this.catalog.pruneChannel(channelId, {
      keepLast: this.rules.keepLast,
      backupsOlderThan: now - this.rules.keepDays * DAY_MS,
      versionsOlderThan: now - this.rules.versionKeepDays * DAY_MS,
      now,
    });
    let blobsRemoved = 0;
    for (const key of unreferenced) {
      try {
        await this.blobs.delete(key);
        blobsRemoved++;
      } catch (err) {
        // The records are gone already; a blob left behind only wastes space, a throw would help nobody.
        this.logger.warn({ err, key }, 'retention could not delete a blob no longer referenced');
      }
    }
    return { blobsRemoved };
  }
}
