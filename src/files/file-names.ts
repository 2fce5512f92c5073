import { AppError } from '../errors/app-error.ts';
import type { FileRecord, LiveFiles, StoredPath, TagCondition } from '../model/files.ts';
import { isStoredForm, spelledOut } from '../names/name-form.ts';
import { formatRfc3339 } from '../time/rfc3339.ts';
import type { FilePath, Naming } from './file-path.ts';
import { entityTagOf, ifMatchMet } from './preconditions.ts';

/** Which stored file a name means, as found under the file's lock. */
export interface NamedFile {
  /** The live file, if there is one. */
  current: FileRecord | undefined;
  /**
   * Where a write puts its bytes: the live file's stored path; with none, the name as asked (NFC),
   * in the folder as it is stored when it holds files under one spelling (a new file of a folder an
   * older release stored in NFD joins that folder rather than start a look-alike one).
   */
  path: FilePath;
  /**
   * Whose versions and past states the name means: the live file's; with none, the one file of
   * that name whose versions are kept, or the name as asked. Two such files: NAME_AMBIGUOUS (409).
   */
  history(): FilePath;
}

/**
 * What a caller's name means among the files stored in a channel. Names are NFC from migration 015
 * on; an older release stored them as spelled, so a file named 'e\u0301.txt' from macOS (NFD) is
 * reached by either spelling, and where an older release stored both spellings ('\u00e9.txt' and
 * 'e\u0301.txt', which look the same), a request naming them is refused with NAME_AMBIGUOUS, naming
 * both, until one is deleted: only If-Match with one's ETag tells which is meant. A channel
 * without such names costs no query more than an exact lookup (FileCatalog.lookalikes).
 */
export class FileNames {
  constructor(private readonly catalog: LiveFiles) {}

  /**
   * The file `path` names. 'stored' naming is exact. `ifMatch`, the write's If-Match, chooses
   * among live look-alikes: the one whose ETag it names (of several holding the same bytes, which
   * look and read the same, an older release's spelling first, so that a delete leaves the NFC one).
   */
  async find(channelId: string, path: FilePath, naming: Naming, ifMatch?: TagCondition): Promise<NamedFile> {
    const exactly = async (): Promise<NamedFile> => {
      const current = await this.catalog.getFile(channelId, path.folder, path.filename);
      return { current, path, history: () => path };
    };
    if (naming === 'stored') return exactly();
    const found = await this.catalog.lookalikes(channelId, path);
    if (found === undefined) return exactly();
    const live = found.live.length === 1 ? found.live[0] : found.live.length > 1 ? chosenBy(ifMatch, found.live) : undefined;
    if (live !== undefined) return { current: live, path: pathOf(live), history: () => pathOf(live) };
    if (found.live.length > 1) throw ambiguousLiveFiles(path, found.live);
    const folder = found.liveFolders.length === 1 ? found.liveFolders[0]! : path.folder;
    return {
      current: undefined,
      path: { folder, filename: path.filename },
      history: () => {
        if (found.kept.length > 1) throw ambiguousHistories(path, found.kept);
        return found.kept.length === 1 ? pathOf(found.kept[0]!) : path;
      },
    };
  }
}

const pathOf = ({ folder, filename }: StoredPath): FilePath => ({ folder, filename });

function chosenBy(ifMatch: TagCondition | undefined, live: FileRecord[]): FileRecord | undefined {
  if (ifMatch === undefined) return undefined;
  const matching = live.filter((file) => ifMatchMet(ifMatch, entityTagOf(file)));
  if (matching.length === 1) return matching[0];
  if (matching.length === 0 || matching.some((file) => file.sha256 !== matching[0]!.sha256)) return undefined;
  return matching.find((file) => !isStoredForm(file.folder) || !isStoredForm(file.filename)) ?? matching[0];
}

const spelling = (path: StoredPath) => spelledOut(`${path.folder}/${path.filename}`);

function ambiguousLiveFiles(path: FilePath, live: FileRecord[]): AppError {
  const listed = live.map((file) => `${spelling(file)} (ETag ${entityTagOf(file)})`).join(' and ');
  return new AppError(
    'NAME_AMBIGUOUS',
    `"${path.folder}/${path.filename}" names ${live.length} files that look the same, stored by an older release under different spellings: ${listed}. Send If-Match with the ETag of the one you mean, or delete one of them (DELETE with its If-Match)`,
    {
      lookalikes: live.map((file) => ({
        folder: file.folder,
        filename: file.filename,
        spelling: spelling(file),
        etag: entityTagOf(file),
        size: file.size,
        updatedAt: formatRfc3339(file.updatedAt),
      })),
    },
  );
}

function ambiguousHistories(path: FilePath, kept: StoredPath[]): AppError {
  return new AppError(
    'NAME_AMBIGUOUS',
    `"${path.folder}/${path.filename}" names the history of ${kept.length} files that look the same, stored by an older release under different spellings: ${kept.map(spelling).join(' and ')}. Restore one of their versions by id (?versionId=, from the folder's deleted files), then that one is the file of this name`,
    { lookalikes: kept.map((file) => ({ folder: file.folder, filename: file.filename, spelling: spelling(file) })) },
  );
}
