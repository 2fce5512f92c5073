import type { BackupOrigin, BackupRecord, Backups } from '../model/backups.ts';
import type { Channel } from '../model/channels.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import { formatBackupTimestamp } from '../time/backup-timestamp.ts';
import type { Actor, AuditTrail } from './audit-trail.ts';

export interface BackupServiceDeps {
  catalog: Backups;
  audit: AuditTrail;
  now?: () => number;
}

/** Backups of a channel, named by their UTC second: each is an instant of the channel's history. */
export class BackupService {
  private readonly now: () => number;
  constructor(private readonly deps: BackupServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * `origin` says what asks for it (the HTTP route, the schedule, the CLI, a restore, the demo seed):
   * the actor's admin id alone cannot tell the schedule from the CLI. `second` names the backup by
   * another second than the current one (a restore's safety backup, when this one is taken).
   */
  async create(channel: Channel, actor: Actor, origin: BackupOrigin, second?: number): Promise<BackupRecord> {
    const { catalog, audit } = this.deps;
    const createdAt = this.now();
    const timestamp = formatBackupTimestamp(second ?? createdAt);
    return audit.around(channel, actor, 'backup', { backupTimestamp: timestamp }, async (entryOf) => {
      // An instant of the channel's history (see channel-history.ts): no file is copied or
      // linked, no row written per file; the bytes it names are kept as versions when replaced.
      const backup = await catalog.createBackup(
        { channelId: channel.id, timestamp, createdBy: actor.adminId, origin, createdAt },
        entryOf({}),
      );
      return { value: backup, details: { bytes: backup.bytes }, recorded: true };
    });
  }

  list(channel: Channel, page: PageRequest): Promise<Page<BackupRecord>> {
    return this.deps.catalog.listBackups(channel.id, page);
  }
}
