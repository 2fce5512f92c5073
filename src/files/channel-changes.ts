import { AppError } from '../errors/app-error.ts';
import { safeSegment } from '../storage/safe-path.ts';
import type { FileCatalog, FileChange, Page, PageRequest } from '../store/file-catalog-types.ts';
import type { Channel } from '../store/types.ts';
import { parseBackupTimestamp } from './backup-timestamp.ts';

/** Between which states to compare, as a request names them. */
export interface ChangesRequest {
  /** The older backup, yyyyMMdd_HHmmss. */
  from: string;
  /** The newer backup; absent: the live files now. */
  to?: string | undefined;
  /** Only this folder. */
  folder?: string | undefined;
}

/** What changed in a channel between two backups, or since a backup. */
export class ChannelChanges {
  constructor(private readonly catalog: FileCatalog) {}

  /**
   * A malformed timestamp or folder, or `to` before `from`, is refused (400) before either backup
   * is looked up; a backup the channel does not have is BACKUP_NOT_FOUND (404).
   */
  async between(channel: Channel, request: ChangesRequest, page: PageRequest): Promise<Page<FileChange>> {
    const from = parseBackupTimestamp(request.from, 'from');
    const to = request.to === undefined ? null : parseBackupTimestamp(request.to, 'to');
    const folder = request.folder === undefined ? undefined : safeSegment(request.folder, 'folder name');
    // yyyyMMdd_HHmmss sorts as time does.
    if (to !== null && to < from) throw new AppError('VALIDATION_FAILED', `to (${to}) is older than from (${from}); swap them`);
    for (const timestamp of to === null ? [from] : [from, to]) {
      if (!(await this.catalog.getBackup(channel.id, timestamp))) {
        throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
      }
    }
    return this.catalog.changesBetween(channel.id, from, to, { folder, page });
  }
}
