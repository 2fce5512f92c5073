import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { errnoCode } from '../errors/errno-code.ts';
import { toStorageError } from './fs-errors.ts';

export interface WalkedFile {
  path: string;
  /** Names from the walk's starting directory down to the file. */
  segments: string[];
}

/**
 * Regular files under `directory`, depth first. Symbolic links are neither followed nor
 * reported, so a planted link cannot lead the walk outside the root. `accept` filters the
 * names of files and of directories to descend into.
 */
export async function* walkFiles(
  directory: string,
  accept: (name: string) => boolean,
  segments: string[] = [],
): AsyncGenerator<WalkedFile> {
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    // Gone (or never there, or a file) is an empty tree: a concurrent delete may prune it.
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw toStorageError(error);
  }
  for (const entry of entries) {
    if (!accept(entry.name)) continue;
    const entryPath = path.join(directory, entry.name);
    if (entry.isDirectory()) yield* walkFiles(entryPath, accept, [...segments, entry.name]);
    else if (entry.isFile()) yield { path: entryPath, segments: [...segments, entry.name] };
  }
}
