import { safeSegment } from '../storage/safe-path.ts';

/** A live file's place in its channel: both names already checked by filePath(). */
export interface FilePath {
  folder: string;
  filename: string;
}

/** Checks both segments once, at the edge; everything below takes them as safe. */
export function filePath(folder: string, filename: string): FilePath {
  return { folder: safeSegment(folder, 'folder name'), filename: safeSegment(filename, 'file name') };
}
