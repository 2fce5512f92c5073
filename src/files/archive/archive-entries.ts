import { AppError } from '../../errors/app-error.ts';
import type { BackupScope, Backups } from '../../model/backups.ts';
import type { Channel } from '../../model/channels.ts';
import type { FileRecord, LiveFiles } from '../../model/files.ts';
import type { ChannelHistory, StateName } from '../../model/history.ts';
import type { FileVersion } from '../../model/versions.ts';
import type { ResolvedInstant } from '../instant.ts';

/** One file of an archive: where its bytes are, as the state archived holds them. */
export interface ArchiveEntry {
  folder: string;
  filename: string;
  size: number;
  sha256: string;
  blobKey: string;
  /** When these bytes became the file's, as far as the records say (epoch ms): the ZIP entry's time. */
  modifiedAt: number;
}

/** Which state of the channel an archive holds: the live files, a backup, or an instant resolved already. */
export type ArchivedState = { live: true } | { backupTimestamp: string; createdAt: number } | { instant: ResolvedInstant };

type Catalog = LiveFiles & ChannelHistory & Pick<Backups, 'backupVersion'>;

/** Names read per page of the live listing. */
const PAGE = 1000;

/**
 * Every file of `scope` in `state`, by folder then filename. The state is fixed first (the live
 * files are the state at the clock's instant when the archive began), then the live records are
 * read page by page, then what changed since that state: a file written meanwhile is read as it
 * was then, so the archive is exactly one state of the channel, whatever is written while it is
 * read. Only names and keys are held (about 200 bytes a file), never bytes.
 */
export async function archiveEntries(
  catalog: Catalog,
  channel: Channel,
  scope: BackupScope,
  state: ArchivedState,
): Promise<ArchiveEntry[]> {
  const from: StateName =
    'live' in state
      ? { seq: (await catalog.clock(channel.id)).seq }
      : 'instant' in state
        ? { seq: state.instant.seq }
        : state.backupTimestamp;
  const entries = new Map<string, ArchiveEntry>();
  for await (const file of liveFiles(catalog, channel.id, scope)) entries.set(keyOf(file), liveEntry(file));
  for (const change of await catalog.changesSince(channel.id, from, scope)) {
    const key = keyOf(change);
    if (change.change === 'added') {
      entries.delete(key);
      continue;
    }
    const then = await bytesThen(catalog, channel, change, from);
    if (then === undefined) throw vanished(change, state);
    const live = entries.get(key);
    if (then.blobKey === null) {
      // A backup's entry without a blob of its own names the live bytes, which are still the file's.
      if (live === undefined || live.sha256 !== then.sha256) throw vanished(change, state);
      continue;
    }
    entries.set(key, {
      folder: change.folder,
      filename: change.filename,
      size: then.size,
      sha256: then.sha256,
      blobKey: then.blobKey,
      modifiedAt: stateTime(state, then),
    });
  }
  return [...entries.values()].sort((a, b) => compare(a.folder, b.folder) || compare(a.filename, b.filename));
}

/** The live records of the scope, a page at a time: one folder's, or every folder's. */
async function* liveFiles(catalog: LiveFiles, channelId: string, scope: BackupScope): AsyncGenerator<FileRecord> {
  const folders = scope.folder === undefined ? allFolders(catalog, channelId) : single(scope.folder);
  for await (const folder of folders) {
    let cursor: string | undefined;
    do {
      const page = await catalog.listFiles(channelId, folder, { limit: PAGE, cursor });
      yield* page.items;
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
  }
}

async function* allFolders(catalog: LiveFiles, channelId: string): AsyncGenerator<string> {
  let cursor: string | undefined;
  do {
    const page = await catalog.listFolders(channelId, { limit: PAGE, cursor });
    for (const folder of page.items) yield folder.name;
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
}

async function* single(folder: string): AsyncGenerator<string> {
  yield folder;
}

/** The file's bytes in the state archived: a backup's entry, or its state at the instant. */
async function bytesThen(
  catalog: Catalog,
  channel: Channel,
  file: { folder: string; filename: string },
  from: StateName,
): Promise<Pick<FileVersion, 'blobKey' | 'size' | 'sha256' | 'createdAt'> | undefined> {
  if (typeof from === 'string') return catalog.backupVersion(channel.id, from, file.folder, file.filename);
  const then = await catalog.fileAtSeq(channel.id, from.seq, file.folder, file.filename);
  if (then === undefined || 'kept' in then) return then?.kept;
  return { blobKey: null, size: then.live.size, sha256: then.live.sha256, createdAt: 0 };
}

/** A version's own time can be when it was kept, after the state: the state's time is the truer one. */
function stateTime(state: ArchivedState, version: { createdAt: number }): number {
  if ('backupTimestamp' in state) return Math.min(version.createdAt, state.createdAt);
  if ('instant' in state) return state.instant.at;
  return version.createdAt;
}

const liveEntry = (file: FileRecord): ArchiveEntry => ({
  folder: file.folder,
  filename: file.filename,
  size: file.size,
  sha256: file.sha256,
  blobKey: file.blobKey,
  modifiedAt: file.updatedAt,
});

/**
 * Retention removed what the state needs between two reads (the archive holds the channel's
 * blobs, not its records): refused before any byte is sent, as the state's own lookup would be.
 */
function vanished(file: { folder: string; filename: string }, state: ArchivedState): AppError {
  const name = `"${file.folder}/${file.filename}"`;
  if ('backupTimestamp' in state) {
    return new AppError('BACKUP_NOT_FOUND', `Backup ${state.backupTimestamp} lost ${name} to retention while the archive was prepared`);
  }
  return new AppError(
    'INSTANT_NOT_RETAINED',
    `The state of ${name} was removed by retention while the archive was prepared; try a later instant`,
  );
}

const keyOf = (file: { folder: string; filename: string }) => `${file.folder}\u0000${file.filename}`;

/** By code unit, as the databases' binary collations order names, whatever the locale. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
