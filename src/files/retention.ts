import type { BlobStorage } from '../blobs/blob-storage.ts';
import type { Logger } from '../logging/logger.ts';
import type { Backups } from '../model/backups.ts';
import type { Channel } from '../model/channels.ts';
import { fileEntry } from './audit-trail.ts';

const DAY_MS = 86_400_000;
const SERVICE = { adminId: null };

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
 * catalog guarantees it), so a file deleted long ago can still be brought back. Each run that
 * removes something appends one 'retention' entry to the channel's log, the service as actor, in
 * the transaction that removes it: the backups it removed by name, and how many versions and blobs.
 */
export class Retention {
  constructor(
    private readonly blobs: BlobStorage,
    private readonly catalog: Backups,
    private readonly rules: RetentionRules,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async apply(channel: Pick<Channel, 'id' | 'tenantId'>): Promise<{ blobsRemoved: number }> {
    const now = this.now();
    const rules = {
      keepLast: this.rules.keepLast,
      backupsOlderThan: now - this.rules.keepDays * DAY_MS,
      versionsOlderThan: now - this.rules.versionKeepDays * DAY_MS,
      now,
    };
    const unreferenced = await this.catalog.pruneChannel(channel.id, rules, (pruned) =>
      fileEntry(channel, SERVICE, 'retention', 'ok', { change: { before: { ...pruned }, after: null } }, undefined, now),
    );
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
