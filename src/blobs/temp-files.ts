import { randomBytes } from 'node:crypto';
import path from 'node:path';

/** Starts with '.', so safeSegment() never lets a caller name, read or list one of these. */
export const TEMP_PREFIX = '.wa-tmp-';

/** A fresh temporary path in the target's own directory, so that rename() never crosses filesystems. */
export function tempPathBeside(target: string): string {
  return path.join(path.dirname(target), `${TEMP_PREFIX}${randomBytes(12).toString('hex')}`);
}

export function isTempName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX);
}
