import type { BlobStorage } from '../blobs/blob-storage.ts';
import type { Logger } from '../logging/logger.ts';
import type { Backups } from '../model/backups.ts';
import type { Channel } from '../model/channels.ts';
import { fileEntry } from './audit-trail.ts';

const DAY_MS = 86_400_000;
const SERVICE = { adminId: null };

/**
 * With an off-site copy (docs/offsite.md): a blob no record names is removed only once the target
 * holds it, so that the copy never names bytes that are gone. One let go of too early waits in the
 * store and is removed by a later run.
 */
export interface BlobReleaseGuard {
  blobReleasable(blobKey: string): Promise<boolean>;
  deferBlobDelete(blobKey: string, at: number): Promise<void>;
  deferredBlobDeletes(limit: number): Promise<string[]>;
  forgetDeferredDelete(blobKey: string): Promise<void>;
}

/** Deferred blobs looked at again per run: a backlog drains over a few runs rather than in one long one. */
const DEFERRED_PER_RUN = 1000;

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
    private readonly guard?: BlobReleaseGuard,
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
    const deferred = this.guard ? await this.guard.deferredBlobDeletes(DEFERRED_PER_RUN) : [];
    for (const key of [...deferred, ...unreferenced]) {
      try {
        if (this.guard && !(await this.guard.blobReleasable(key))) {
          await this.guard.deferBlobDelete(key, now);
          continue;
        }
        await this.blobs.delete(key);
        await this.guard?.forgetDeferredDelete(key);
        blobsRemoved++;
      } catch (err) {
        // The records are gone already; a blob left behind only wastes space, a throw would help nobody.
        this.logger.warn({ err, key }, 'retention could not delete a blob no longer referenced');
      }
    }
    return { blobsRemoved };
  }
}
