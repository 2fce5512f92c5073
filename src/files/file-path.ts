import { safeSegment } from '../blobs/safe-path.ts';
import { storedForm } from '../names/name-form.ts';

/** A file's place in its channel: both names checked by filePath(), or stored so (a catalog's record). */
export interface FilePath {
  folder: string;
  filename: string;
}

/**
 * How a path names its file. 'requested': as a caller names it, in NFC (filePath()); the file is
 * the one stored under that name or under a look-alike spelling an older release stored, and a
 * name two such files share is refused (file-names.ts). 'stored': one stored spelling exactly, as
 * the catalog returned it (the entries of a folder or channel restore's plan).
 */
export type Naming = 'requested' | 'stored';

/**
 * A caller's names, checked once at the edge and brought to the form names are stored in (NFC,
 * name-form.ts): everything below takes them as safe. Checked after normalising, so that the
 * stored name is the one the rules hold for.
 */
export function filePath(folder: string, filename: string): FilePath {
  return { folder: folderName(folder), filename: safeSegment(storedForm(filename), 'file name') };
}

/** A caller's folder name, as filePath() checks and normalises it. */
export function folderName(folder: string): string {
  return safeSegment(storedForm(folder), 'folder name');
}
