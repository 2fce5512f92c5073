import { backupExists } from '../errors/common-errors.ts';
import type { FileLocks } from '../locks/file-locks.ts';
import type { BlobStorage } from '../storage/blob-storage.ts';
import type { BackupRecord, FileCatalog, NewFileVersion, Page, PageRequest } from '../store/file-catalog-types.ts';
import type { Channel } from '../store/types.ts';
import type { Actor, AuditTrail } from './audit-trail.ts';
import { formatBackupTimestamp } from './backup-timestamp.ts';
import { backupKey, liveKey, newBackupAttempt } from './blob-layout.ts';

export interface BackupServiceDeps {
  blobs: BlobStorage;
  catalog: FileCatalog;
  locks: FileLocks;
  audit: AuditTrail;
  now?: () => number;
}

/** Links per file in flight at once: enough to hide latency, few enough not to exhaust file handles. */
const LINK_CONCURRENCY = 16;

/**
 * Snapshots of every folder of a channel, named by their UTC second. Each file is linked, not
 * copied (see version-keeper.ts), under its own lock so that the recorded sha256 is the linked bytes'.
 */
export class BackupService {
  private readonly now: () => number;
  constructor(private readonly deps: BackupServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** `second` names the backup by another second than the current one (a restore's safety backup, when this one is taken). */
  async create(channel: Channel, actor: Actor, second?: number): Promise<BackupRecord> {
    const { catalog, audit } = this.deps;
    const startedAt = this.now();
    const timestamp = formatBackupTimestamp(second ?? startedAt);
    return audit.around(channel, actor, 'backup', { backupTimestamp: timestamp }, async () => {
      if (await catalog.getBackup(channel.id, timestamp)) throw backupExists(timestamp);
      const linked: string[] = [];
      try {
        const versions = await this.linkAll(channel, timestamp, linked);
        const backup: BackupRecord = {
          channelId: channel.id,
          timestamp,
          files: versions.length,
          bytes: versions.reduce((sum, v) => sum + v.size, 0),
          createdBy: actor.adminId,
          createdAt: startedAt,
        };
        await catalog.createBackup(backup, versions);
        return { value: backup, details: { bytes: backup.bytes } };
      } catch (error) {
        // A lost race (BACKUP_EXISTS from the catalog) or a failure: this attempt's links go.
        await Promise.allSettled(linked.map((key) => this.deps.blobs.delete(key)));
        throw error;
      }
    });
  }

  list(channel: Channel, page: PageRequest): Promise<Page<BackupRecord>> {
    return this.deps.catalog.listBackups(channel.id, page);
  }

  private async linkAll(channel: Channel, timestamp: string, linked: string[]): Promise<NewFileVersion[]> {
    const { blobs, catalog, locks } = this.deps;
    const files = await catalog.allFiles(channel.id);
    const attempt = newBackupAttempt();
    const versions: NewFileVersion[] = [];
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const listed = files[next++]!;
        const source = liveKey(channel.id, listed.folder, listed.filename);
        await locks.runExclusive(source, async () => {
          const file = await catalog.getFile(channel.id, listed.folder, listed.filename);
          if (file === undefined) return; // deleted meanwhile: not part of this snapshot
          const key = backupKey(channel.id, timestamp, attempt, file.folder, file.filename);
          await blobs.link(source, key);
          linked.push(key);
          versions.push({ ...file, kind: 'backup', backupTimestamp: timestamp, blobKey: key, createdAt: this.now() });
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(LINK_CONCURRENCY, files.length) }, worker));
    return versions;
  }
}
