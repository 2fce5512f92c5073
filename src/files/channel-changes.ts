import { AppError } from '../errors/app-error.ts';
import type { Backups } from '../model/backups.ts';
import type { Channel } from '../model/channels.ts';
import type { ChannelHistory, FileChange, StateName } from '../model/history.ts';
import type { Page, PageRequest } from '../model/paging.ts';
import { backupTimestampMs, parseBackupTimestamp } from '../time/backup-timestamp.ts';
import { folderName } from './file-path.ts';
import { resolveInstant } from './instant.ts';

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
  /** How the caller calls the four ends, for the refusals: the API's query names by default, the CLI its options. */
  names?: EndNames | undefined;
}

export interface EndNames {
  from: string;
  fromAt: string;
  to: string;
  toAt: string;
}

const QUERY_NAMES: EndNames = { from: 'from', fromAt: 'fromAt', to: 'to', toAt: 'toAt' };

/**
 * Where an end lies in the channel's history: its clock value, then the time it names (an
 * instant's, or the second a backup's timestamp spells). The clock decides: it is the history's
 * own order, whatever the names say. A backup from before migration 005 has no clock value and
 * lies before every state that has one, those backups in the order of their timestamps. Ends at
 * one clock value name one state, and are in the order their names give: "toAt" a minute before
 * "fromAt" is refused even when nothing was written in between, as the caller mixed them up.
 */
interface Position {
  seq: number;
  time: number;
}

/** One end of the comparison, resolved: the state the catalog compares, where it lies, and how the caller named it. */
interface End {
  state: StateName;
  position: Position;
  /** As the caller sent it: `toAt (2026-11-22T09:00:00Z)`. */
  said: string;
}

/** What changed in a channel between two backups or instants, or since one. */
export class ChannelChanges {
  constructor(
    private readonly catalog: Backups & ChannelHistory,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A malformed timestamp, instant or folder, both or neither of from/fromAt, both of to/toAt, or
   * the newer end before the older one (whichever form each end takes) is refused (400); a backup
   * the channel does not have is BACKUP_NOT_FOUND, an instant retention no longer holds
   * INSTANT_NOT_RETAINED (404).
   */
  async between(channel: Channel, request: ChangesRequest, page: PageRequest): Promise<Page<FileChange>> {
    const names = request.names ?? QUERY_NAMES;
    if ((request.from === undefined) === (request.fromAt === undefined)) {
      throw new AppError(
        'VALIDATION_FAILED',
        `Give exactly one of ${names.from} (a backup, yyyyMMdd_HHmmss) and ${names.fromAt} (an RFC 3339 instant)`,
      );
    }
    if (request.to !== undefined && request.toAt !== undefined) {
      throw new AppError('VALIDATION_FAILED', `Give ${names.to} or ${names.toAt}, not both`);
    }
    const from = request.from === undefined ? undefined : parseBackupTimestamp(request.from, names.from);
    const to = request.to === undefined ? undefined : parseBackupTimestamp(request.to, names.to);
    const folder = request.folder === undefined ? undefined : folderName(request.folder);
    const older = (await this.end(channel, from, request.fromAt, names.from, names.fromAt))!;
    const newer = await this.end(channel, to, request.toAt, names.to, names.toAt);
    if (newer !== null && before(newer.position, older.position)) {
      throw new AppError('VALIDATION_FAILED', `${newer.said} is older than ${older.said}; swap them`);
    }
    return this.catalog.changesBetween(channel.id, older.state, newer?.state ?? null, { folder, page });
  }

  /** A backup (checked to exist) or an instant (resolved), with its position; null when neither is named: the live files. */
  private async end(
    channel: Channel,
    timestamp: string | undefined,
    at: string | undefined,
    timestampName: string,
    atName: string,
  ): Promise<End | null> {
    if (at !== undefined) {
      const instant = await resolveInstant(this.catalog, channel.id, at, this.now(), atName);
      return { state: { seq: instant.seq }, position: { seq: instant.seq, time: instant.at }, said: `${atName} (${at})` };
    }
    if (timestamp === undefined) return null;
    const backup = await this.catalog.getBackup(channel.id, timestamp);
    if (!backup) throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
    return {
      state: timestamp,
      position: { seq: backup.seq ?? -1, time: backupTimestampMs(timestamp) },
      said: `${timestampName} (${timestamp})`,
    };
  }
}

const before = (a: Position, b: Position): boolean => a.seq < b.seq || (a.seq === b.seq && a.time < b.time);
