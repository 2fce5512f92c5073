import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { DirectorySyncs } from './directory-syncs.ts';

/** One per process: the writers of every blob storage, staging area and off-site directory share the grouping. */
const syncs = new DirectorySyncs(fsyncNow);

/**
 * A rename or a new entry survives a power cut only once its directory is fsynced too. Settles
 * after an fsync of `directory` that began after the call, shared with the calls made meanwhile
 * for the same directory (directory-syncs.ts): every change made to it before the call is durable.
 */
export function fsyncDirectory(directory: string): Promise<void> {
  return syncs.sync(path.resolve(directory));
}

async function fsyncNow(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * mkdir -p, then fsync the parent of each directory it created: otherwise a power cut can lose
 * a new directory, and the file renamed into it, although both were "durable".
 */
export async function makeDirectories(directory: string): Promise<void> {
  const firstCreated = await mkdir(directory, { recursive: true });
  if (firstCreated === undefined) return;
  const created: string[] = [];
  for (let current = path.resolve(directory); ; current = path.dirname(current)) {
    created.push(current);
    if (current === path.resolve(firstCreated) || current === path.dirname(current)) break;
  }
  for (const child of created.reverse()) await fsyncDirectory(path.dirname(child));
}
