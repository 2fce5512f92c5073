/**
 * The off-site target: where the shipper leaves its (already encrypted) objects, a directory or
 * an S3 bucket. Write-once: an object, once there, is never replaced by this service, so a copy
 * that was good stays good whatever a later run (or a compromised one) sends.
 */

export interface TargetObject {
  name: string;
  size: number;
}

export interface PutResult {
  /** false: an object of that name already existed; nothing was written. */
  written: boolean;
}

export interface OffsiteTarget {
  /** The target as an operator may see it in a log: scheme, bucket/path, prefix; never a credential. */
  readonly description: string;
  /**
   * Writes name once; refuses to replace an existing object (answers written:false). Body: a Buffer
   * or a stream of bytes; size optional (when given, a body of another length is refused, nothing written).
   */
  putNew(name: string, body: Buffer | AsyncIterable<Uint8Array>, options?: { size?: number }): Promise<PutResult>;
  /** The object's bytes as a stream; throws OffsiteObjectMissing when absent. */
  get(name: string): Promise<AsyncIterable<Uint8Array>>;
  head(name: string): Promise<TargetObject | undefined>;
  /** Every object whose name starts with prefix, sorted by name (paginates S3 listings). */
  list(prefix: string): AsyncIterable<TargetObject>;
  /** Removes an object (pruning old generations); absent is fine. */
  remove(name: string): Promise<void>;
  /**
   * Removes what writes cut short left behind (a directory's temporary files older than
   * `olderThanMs`); answers how many. S3 keeps no half object: there a lifecycle rule aborts
   * incomplete multipart uploads (docs/offsite.md).
   */
  removeLeftovers(olderThanMs: number): Promise<number>;
  close(): Promise<void>;
}

/** get() of a name the target does not hold. */
export class OffsiteObjectMissing extends Error {
  override readonly name = 'OffsiteObjectMissing';
  constructor(
    readonly target: string,
    readonly objectName: string,
  ) {
    super(`${target}: no object named ${JSON.stringify(objectName)}`);
  }
}

/** The usual file-name limit; a directory target stores each segment as a file or folder name. */
const MAX_SEGMENT_BYTES = 255;
// C0 and C1 controls (NUL included): a name is printed in logs and must read as what it is.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/**
 * The one rule for object names, the same for both kinds of target so that a name the shipper
 * uses works on either: '/'-separated segments, none empty, '.' or '..' (a directory target would
 * leave its root), none starting with '.' (that is where temporary files live, and list() skips
 * them), no backslash (a separator on some systems), no control character.
 */
export function checkObjectName(name: string): string {
  if (typeof name !== 'string' || name.length === 0) refuse(name, 'must not be empty');
  if (name.startsWith('/')) refuse(name, "must be relative (not start with '/')");
  for (const segment of name.split('/')) checkSegment(name, segment);
  return name;
}

/**
 * A list() prefix: '' (everything) or the start of a name. Only its last segment may be partial or
 * empty ('generations/' lists the folder, 'generations/g12' the names that start so).
 */
export function checkObjectPrefix(prefix: string): string {
  if (typeof prefix !== 'string') refuse(String(prefix), 'must be a string');
  if (prefix === '') return prefix;
  if (prefix.startsWith('/')) refuse(prefix, "must be relative (not start with '/')");
  const segments = prefix.split('/');
  const last = segments.pop() ?? '';
  for (const segment of segments) checkSegment(prefix, segment);
  if (last.includes('\\') || CONTROL.test(last)) refuse(prefix, 'must not contain a backslash or a control character');
  return prefix;
}

function checkSegment(name: string, segment: string): void {
  if (segment.length === 0) refuse(name, "must not have an empty segment ('//' or a trailing '/')");
  if (segment === '.' || segment === '..') refuse(name, "must not have a '.' or '..' segment");
  if (segment.startsWith('.')) refuse(name, "must not have a segment starting with '.'");
  if (segment.includes('\\')) refuse(name, 'must not contain a backslash');
  if (CONTROL.test(segment)) refuse(name, 'must not contain a control character');
  if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES)
    refuse(name, `must not have a segment longer than ${MAX_SEGMENT_BYTES} bytes`);
}

function refuse(name: string, rule: string): never {
  // JSON.stringify shows control characters escaped rather than writing them into a log line.
  throw new Error(`offsite object name ${JSON.stringify(name)} is refused: it ${rule}`);
}

/** Counts a body's bytes as they pass, and refuses one longer or shorter than announced. */
export async function* sizedBody(body: Buffer | AsyncIterable<Uint8Array>, size: number | undefined): AsyncIterable<Uint8Array> {
  if (size !== undefined && (!Number.isSafeInteger(size) || size < 0)) throw new Error(`size must be a whole number of bytes, not ${size}`);
  let seen = 0;
  const chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array> = Buffer.isBuffer(body) ? [body] : body;
  for await (const chunk of chunks) {
    seen += chunk.byteLength;
    // Thrown before the chunk goes on, so that no part of an over-long body is stored.
    if (size !== undefined && seen > size) throw new Error(`the body is longer than the announced ${size} bytes`);
    yield chunk;
  }
  // Thrown before the consumer sees the end: a writer stores nothing of a short body.
  if (size !== undefined && seen < size) throw new Error(`the body is ${seen} bytes, shorter than the announced ${size}`);
}
