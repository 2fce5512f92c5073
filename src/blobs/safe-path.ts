import path from 'node:path';
import { AppError } from '../errors/app-error.ts';
import { hiddenCharacterRule } from '../names/hidden-characters.ts';

/** The usual file-name limit (ext4, XFS, btrfs, APFS, NTFS count it in bytes or close to it). */
const MAX_SEGMENT_BYTES = 255;

const ONLY_WHITESPACE = /^\s+$/u;
// Windows, SMB shares and some archivers drop trailing dots and spaces, so 'a.' and 'a' would
// name the same file there.
const TRAILING_DOT_OR_SPACE = /[.\s]$/u;

function refuse(what: string, rule: string): never {
  throw new AppError('INVALID_PATH', `${what} ${rule}`);
}

/**
 * The one gate for every path segment (channel id, folder, file name, timestamp, version id).
 * The value is returned unchanged: it is never decoded again, because the HTTP router already
 * decoded it once, and decoding twice is what turns '%252e%252e' into '..'.
 */
export function safeSegment(value: string, what: string): string {
  if (typeof value !== 'string' || value.length === 0) refuse(what, 'must not be empty');
  // Control, format characters and lone surrogates: the rule every name shares (hidden-characters.ts).
  const hidden = hiddenCharacterRule(value);
  if (hidden !== undefined) refuse(what, hidden);
  if (value.includes('/') || value.includes('\\')) refuse(what, "must not contain '/' or '\\'");
  if (value === '.' || value === '..') refuse(what, "must not be '.' or '..'");
  // Also keeps callers off hidden files and off our own temporary files, which start with '.'.
  if (value.startsWith('.')) refuse(what, "must not start with '.'");
  if (ONLY_WHITESPACE.test(value)) refuse(what, 'must not be only whitespace');
  if (TRAILING_DOT_OR_SPACE.test(value)) refuse(what, 'must not end with a dot or whitespace');
  if (Buffer.byteLength(value, 'utf8') > MAX_SEGMENT_BYTES) refuse(what, `must be at most ${MAX_SEGMENT_BYTES} bytes in UTF-8`);
  return value;
}

/** A storage key from segments, each checked by safeSegment. */
export function blobKey(...segments: string[]): string {
  if (segments.length === 0) refuse('key', 'needs at least one segment');
  return segments.map((segment) => safeSegment(segment, 'key segment')).join('/');
}

/**
 * The absolute path of `key` under `root`. Every segment is checked again and the result must
 * lie strictly inside root: defence in depth, should a key ever be built without blobKey().
 */
export function resolveInside(root: string, key: string): string {
  if (typeof key !== 'string') refuse('key', 'must be a string');
  const segments = key.split('/').map((segment) => safeSegment(segment, 'key segment'));
  const base = path.resolve(root);
  const resolved = path.resolve(base, ...segments);
  const relative = path.relative(base, resolved);
  const outside = relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
  if (outside) refuse('key', 'must resolve inside the storage root');
  return resolved;
}
