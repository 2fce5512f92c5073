import type { Readable } from 'node:stream';
import type { BlobStorage } from '../../blobs/blob-storage.ts';
import { AppError } from '../../errors/app-error.ts';
import type { BackupScope, Backups } from '../../model/backups.ts';
import type { Channel } from '../../model/channels.ts';
import type { LiveFiles } from '../../model/files.ts';
import type { ChannelHistory } from '../../model/history.ts';
import { newReadHoldId } from '../../model/ids.ts';
import type { ReadHolds } from '../../model/read-holds.ts';
import { parseBackupTimestamp } from '../../time/backup-timestamp.ts';
import { type Actor, type AuditTrail, requestedDetails } from '../audit-trail.ts';
import { downloadDisposition } from '../download-disposition.ts';
import { folderName } from '../file-path.ts';
import { resolveRestorableInstant } from '../instant.ts';
import { type ArchivedState, archiveEntries } from './archive-entries.ts';
import { zipOf } from './zip-writer.ts';

/** A folder's archive (`folder` given) or the whole channel's: live, at a backup, or at an instant. */
export interface ArchiveRequest {
  folder?: string | undefined;
  backupTimestamp?: string | undefined;
  at?: string | undefined;
}

/** An archive ready to stream: nothing of it is read until `stream` is. */
export interface Archive {
  stream: Readable;
  /** The Content-Disposition of the download. */
  disposition: string;
  files: number;
  /** Of the files' bytes (the ZIP adds its headers). */
  bytes: number;
  /** The archive's exact length: its Content-Length. */
  size: number;
}

export interface ArchiveDeps {
  catalog: LiveFiles & ChannelHistory & Pick<Backups, 'backupVersion' | 'getBackup'>;
  blobs: BlobStorage;
  audit: AuditTrail;
  holds: ReadHolds;
  /** ARCHIVE_MAX_PER_ADMIN */
  maxPerAdmin: number;
  now?: () => number;
}

/** How long a hold lasts unrenewed: a streaming archive renews it three times as often. */
const HOLD_MS = 60_000;

/**
 * Folder and channel archives (docs/archives.md): a ZIP of one state, streamed. While it streams
 * the archive holds the channel's blobs against retention (read-holds.ts), so that a version
 * pruned meanwhile is still read; holds also bound the archives an admin has under way, on every
 * instance. An archive is an audited read: its 'archive' entry is appended once the stream has
 * ended ('ok') or stopped ('failed'), never holding the tenant's chain while it streams; a refusal
 * before the first byte is recorded as every refusal is.
 */
export class ArchiveService {
  private readonly now: () => number;

  constructor(private readonly deps: ArchiveDeps) {
    this.now = deps.now ?? Date.now;
  }

  async open(channel: Channel, actor: Actor, request: ArchiveRequest): Promise<Archive> {
    const { audit, holds } = this.deps;
    const details = requestedDetails(request);
    const started = performance.now();
    const hold = { id: newReadHoldId(), channelId: channel.id, adminId: actor.adminId ?? 'operator', until: this.now() + HOLD_MS };
    let held = false;
    try {
      if (request.backupTimestamp !== undefined && request.at !== undefined) {
        throw new AppError('VALIDATION_FAILED', 'Give at most one of backupTimestamp (yyyyMMdd_HHmmss) and at (RFC 3339)');
      }
      // Taken before the records are read: a blob they name cannot go until the hold ends.
      held = await holds.takeReadHold(hold, this.deps.maxPerAdmin, this.now());
      if (!held) {
        throw new AppError(
          'RATE_LIMITED',
          `At most ${this.deps.maxPerAdmin} archives may stream at once for one admin; try again when one has finished`,
          { retryAfterSeconds: 5 },
        );
      }
      const scope: BackupScope = request.folder === undefined ? {} : { folder: folderName(request.folder) };
      const state = await this.stateOf(channel, request);
      const entries = await archiveEntries(this.deps.catalog, channel, scope, state);
      const bytes = entries.reduce((sum, entry) => sum + entry.size, 0);
      const { stream, size } = zipOf(
        entries.map((entry) => ({
          path: `${entry.folder}/${entry.filename}`,
          size: entry.size,
          modifiedAt: entry.modifiedAt,
          open: () => this.read(entry.blobKey, entry.size),
        })),
      );
      this.followStream(stream, hold.id, async (error) => {
        if (error === undefined) await audit.record(channel, actor, 'archive', 'ok', details);
        else await audit.stopped(channel, actor, 'archive', details, error, started);
      });
      return {
        stream,
        disposition: downloadDisposition(archiveName(channel, request), 'application/zip'),
        files: entries.length,
        bytes,
        size,
      };
    } catch (error) {
      if (held) await holds.releaseReadHold(hold.id).catch(() => undefined);
      await audit.stopped(channel, actor, 'archive', details, error, started);
      throw error;
    }
  }

  /** Renews the hold while `stream` is read; at its end releases it and reports how it ended. */
  private followStream(stream: Readable, holdId: string, ended: (error: unknown) => Promise<void>): void {
    const { holds } = this.deps;
    const renew = setInterval(() => {
      holds.renewReadHold(holdId, this.now() + HOLD_MS).catch(() => undefined);
    }, HOLD_MS / 3);
    renew.unref();
    let finished = false;
    stream.once('end', () => {
      finished = true;
    });
    stream.once('close', () => {
      clearInterval(renew);
      const error = finished ? undefined : (stream.errored ?? new Error('the download stopped before the archive was complete'));
      void holds
        .releaseReadHold(holdId)
        .catch(() => undefined)
        .then(() => ended(error));
    });
  }

  private async read(blobKey: string, size: number): Promise<Readable> {
    const stream = await this.deps.blobs.get(blobKey, undefined, { size });
    if (stream === undefined) throw new AppError('INTEGRITY_FAILED', `The bytes of an archived file are missing from storage (${blobKey})`);
    return stream;
  }

  private async stateOf(channel: Channel, request: ArchiveRequest): Promise<ArchivedState> {
    if (request.at !== undefined) return { instant: await resolveRestorableInstant(this.deps.catalog, channel, request.at, this.now()) };
    if (request.backupTimestamp === undefined) return { live: true };
    const timestamp = parseBackupTimestamp(request.backupTimestamp);
    const backup = await this.deps.catalog.getBackup(channel.id, timestamp);
    if (backup === undefined) throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
    return { backupTimestamp: timestamp, createdAt: backup.createdAt };
  }
}

/** channel[-folder][-state].zip: what a browser saves it as. */
function archiveName(channel: Channel, request: ArchiveRequest): string {
  const state = request.backupTimestamp ?? request.at?.replace(/[:]/g, '');
  return `${[channel.name, request.folder, state].filter((part) => part !== undefined).join('-')}.zip`;
}
