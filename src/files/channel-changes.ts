import { AppError } from '../errors/app-error.ts';
import { safeSegment } from '../storage/safe-path.ts';
import type { FileCatalog, FileChange, Page, PageRequest } from '../store/file-catalog-types.ts';
import type { Channel } from '../store/types.ts';
import { parseBackupTimestamp } from './backup-timestamp.ts';
import { type ResolvedInstant, resolveInstant } from './instant.ts';

/** Between which states to compare, as a request names them: each a backup or an instant. */
export interface ChangesRequest {
  /** The older backup, yyyyMMdd_HHmmss; or fromAt. */
  from?: string | undefined;
  /** The older state as an RFC 3339 instant. */
  fromAt?: string | undefined;
  /** The newer backup; or toAt; neither: the live files now. */
  to?: string | undefined;
  toAt?: string | undefined;
  /** Only this folder. */
  folder?: string | undefined;
}

/** What changed in a channel between two backups or instants, or since one. */
export class ChannelChanges {
  constructor(
    private readonly catalog: FileCatalog,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A malformed timestamp, instant or folder, both or neither of from/fromAt, both of to/toAt, or
   * the newer state before the older, is refused (400); a backup the channel does not have is
   * BACKUP_NOT_FOUND, an instant retention no longer holds INSTANT_NOT_RETAINED (404).
   */
  async between(channel: Channel, request: ChangesRequest, page: PageRequest): Promise<Page<FileChange>> {
    if ((request.from === undefined) === (request.fromAt === undefined)) {
      throw new AppError('VALIDATION_FAILED', 'Give exactly one of from (a backup, yyyyMMdd_HHmmss) and fromAt (an RFC 3339 instant)');
    }
    if (request.to !== undefined && request.toAt !== undefined) throw new AppError('VALIDATION_FAILED', 'Give to or toAt, not both');
    const from = request.from === undefined ? undefined : parseBackupTimestamp(request.from, 'from');
    const to = request.to === undefined ? undefined : parseBackupTimestamp(request.to, 'to');
    const folder = request.folder === undefined ? undefined : safeSegment(request.folder, 'folder name');
    // yyyyMMdd_HHmmss sorts as time does.
    if (from !== undefined && to !== undefined && to < from) {
      throw new AppError('VALIDATION_FAILED', `to (${to}) is older than from (${from}); swap them`);
    }
    const older = await this.state(channel, from, request.fromAt, 'fromAt');
    const newer = await this.state(channel, to, request.toAt, 'toAt');
    if (older !== null && newer !== null && typeof older !== 'string' && typeof newer !== 'string' && newer.at < older.at) {
      throw new AppError('VALIDATION_FAILED', 'toAt is older than fromAt; swap them');
    }
    // from or fromAt is given (checked above): older is a state.
    return this.catalog.changesBetween(channel.id, older!, newer, { folder, page });
  }

  /** A backup (checked to exist) or an instant (resolved); null when neither is named: the live files. */
  private async state(
    channel: Channel,
    timestamp: string | undefined,
    at: string | undefined,
    atName: string,
  ): Promise<string | ResolvedInstant | null> {
    if (at !== undefined) return resolveInstant(this.catalog, channel.id, at, this.now(), atName);
    if (timestamp === undefined) return null;
    if (!(await this.catalog.getBackup(channel.id, timestamp))) {
      throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
    }
    return timestamp;
  }
}
