import path from 'node:path';
import { AppError } from '../errors/app-error.ts';

/** The usual file-name limit (ext4, XFS, btrfs, APFS, NTFS count it in bytes or close to it). */
const MAX_SEGMENT_BYTES = 255;

// \p{Cc} is C0, DEL and C1: C1 controls (e.g. U+009B, a terminal escape) are as unwelcome in a
// file name as C0 ones, so they are refused with them.
const CONTROL_CHARACTER = /\p{Cc}/u;
const LONE_SURROGATE = /\p{Cs}/u;
// \p{Cf}, the invisible format characters, change how a name is shown without showing
// themselves: the bidi controls (U+202A–202E, U+2066–2069, U+200E/200F, U+061C) reorder it, so
// 'invoice\u202Egnp.exe' displays as 'invoiceexe.png'; others (U+00AD soft hyphen, U+200B zero
// width space, U+2060 word joiner, U+FEFF BOM, the tag characters) make two names that look the
// same. All are refused, like control characters, except the zero-width non-joiner and joiner
// (U+200C, U+200D) between two visible characters: Persian and Urdu words need the non-joiner
// ('می‌خواهم'), Indic scripts both (conjunct forms), and emoji sequences the joiner
// ('👩‍💻'). Between visible characters neither reorders anything; at an edge of the name or
// next to a dot, a space or another format character they would only hide, so they are refused.
const FORMAT_CHARACTER = /\p{Cf}/u;
const JOINER_BETWEEN_VISIBLE = /(?<=[\p{L}\p{M}\p{N}\p{S}])[\u200C\u200D](?=[\p{L}\p{M}\p{N}\p{S}])/gu;
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
  if (LONE_SURROGATE.test(value)) refuse(what, 'must be valid Unicode (it contains a lone surrogate)');
  if (CONTROL_CHARACTER.test(value)) refuse(what, 'must not contain control characters (U+0000–U+001F, U+007F–U+009F)');
  if (FORMAT_CHARACTER.test(value.replace(JOINER_BETWEEN_VISIBLE, '')))
    refuse(
      what,
      'must not contain format characters such as U+202E (right-to-left override) or U+200B (zero width space); a zero-width joiner or non-joiner only between two letters, digits or symbols',
    );
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
