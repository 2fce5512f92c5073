import { AppError } from '../errors/app-error.ts';
import type { Backups } from '../model/backups.ts';
import type { Channel } from '../model/channels.ts';
import type { ChannelHistory } from '../model/history.ts';
import { backupOfEntryId } from '../model/version-ids.ts';
import type { FileVersion, KeptVersions } from '../model/versions.ts';
import { storedForm } from '../names/name-form.ts';
import { parseBackupTimestamp } from '../time/backup-timestamp.ts';
import type { NamedFile } from './file-names.ts';
import type { FilePath } from './file-path.ts';
import { type ResolvedInstant, resolveRestorableInstant } from './instant.ts';

/**
 * Which stored bytes to bring back: a backup (newest holding the file when none is named), a kept
 * version, or the file's state at an instant (RFC 3339 as asked, or resolved by a scope restore).
 */
export interface RestoreSource {
  backupTimestamp?: string | undefined;
  versionId?: string | undefined;
  at?: string | ResolvedInstant | undefined;
}

/**
 * The bytes to restore; null for an instant at which the file held its live bytes. A version named
 * by id may be any of the name's spellings' (`asked`); backups and instants are read for the file
 * whose history the name means (NamedFile.history). Each part of the source is read once, here:
 * a backup entry's id names its backup, which the backup's lookup then takes as it is.
 */
export async function findRestoreSource(
  catalog: Backups & ChannelHistory & KeptVersions,
  channel: Channel,
  asked: FilePath,
  named: NamedFile,
  source: RestoreSource,
  now: number,
): Promise<FileVersion | null> {
  // One of the three was named (the restore checked): each branch reads its own.
  if (source.at !== undefined) {
    const path = named.history();
    const instant = typeof source.at === 'string' ? await resolveRestorableInstant(catalog, channel, source.at, now) : source.at;
    const state = await catalog.fileAtSeq(channel.id, instant.seq, path.folder, path.filename);
    if (state === undefined) {
      throw new AppError('BACKUP_FILE_NOT_FOUND', `"${path.folder}/${path.filename}" did not exist at ${instant.written}`);
    }
    return 'kept' in state ? state.kept : null;
  }
  // undefined: no backup entry's id (a kept version's, then); false: an entry of another file.
  const entryBackup = source.versionId === undefined ? undefined : backupOfEntryId(source.versionId, () => named.history());
  if (source.versionId !== undefined && entryBackup === false) throw versionNotFound(source.versionId, named.history());
  if (source.versionId !== undefined && entryBackup === undefined) {
    const version = await catalog.getVersion(channel.id, source.versionId);
    if (!version || !sameName(version, asked)) throw versionNotFound(source.versionId, asked);
    return version;
  }
  const timestamp =
    typeof entryBackup === 'string'
      ? entryBackup
      : source.backupTimestamp === undefined
        ? undefined
        : parseBackupTimestamp(source.backupTimestamp);
  const path = named.history();
  if (timestamp !== undefined) {
    // backupVersion reads the backup itself: which of the two is missing is asked only on a miss.
    const version = await catalog.backupVersion(channel.id, timestamp, path.folder, path.filename);
    if (version) return version;
    if (!(await catalog.getBackup(channel.id, timestamp))) {
      throw new AppError('BACKUP_NOT_FOUND', `This channel has no backup ${timestamp}`);
    }
    throw new AppError('BACKUP_FILE_NOT_FOUND', `Backup ${timestamp} does not hold "${path.folder}/${path.filename}"`);
  }
  const newest = await catalog.newestBackupVersion(channel.id, path.folder, path.filename);
  if (!newest) throw new AppError('BACKUP_FILE_NOT_FOUND', `No backup of this channel holds "${path.folder}/${path.filename}"`);
  return newest;
}

const versionNotFound = (id: string, path: FilePath) =>
  new AppError('VERSION_NOT_FOUND', `No version "${String(id).slice(0, 60)}" of "${path.folder}/${path.filename}"`);

/** Whether a version is of the file `asked` names: stored under that name or a look-alike spelling of it. */
const sameName = (version: FilePath, asked: FilePath): boolean =>
  storedForm(version.folder) === storedForm(asked.folder) && storedForm(version.filename) === storedForm(asked.filename);
