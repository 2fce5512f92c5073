import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** OFFSITE_URL (docs/offsite.md, "The target"), parsed: a local directory, or a bucket and a prefix. */
export type ParsedOffsiteUrl = { kind: 'file'; path: string } | { kind: 's3'; bucket: string; prefix: string };

// scheme://authority/path, split by hand: WHATWG URL quietly rewrites what should be refused
// (file:relative becomes file:///relative, '..' segments are resolved away).
const SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):(\/\/([^/?#]*))?([^?#]*)([?#].*)?$/s;
// S3's rule for bucket names (3 to 63 lowercase letters, digits, '.' and '-', a letter or digit at each end).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/**
 * OFFSITE_URL: file:///absolute/path or s3://bucket/prefix. Refused with a reason: any other
 * scheme, a relative path, a file URL with a host, a query or fragment, an s3 URL without a
 * bucket or with credentials or a port in it (credentials and endpoint are configured apart).
 * The URL is never echoed whole: it might hold credentials someone put there.
 */
export function parseOffsiteUrl(url: string): ParsedOffsiteUrl {
  if (typeof url !== 'string' || url.trim() === '') fail('is empty; give file:///absolute/path or s3://bucket/prefix');
  const shape = SHAPE.exec(url);
  if (shape === null) fail('must start with file:/// or s3:// (file:///absolute/path or s3://bucket/prefix)');
  const [, scheme = '', slashes, authority = '', rawPath = '', queryOrFragment] = shape;
  const kind = scheme.toLowerCase();
  if (kind !== 'file' && kind !== 's3') fail(`must be file:///absolute/path or s3://bucket/prefix, not a ${scheme}: URL`);
  if (authority.includes('@')) fail('must not hold credentials (user:password@); they are configured apart');
  if (queryOrFragment !== undefined) fail(`must not have a query or fragment ('?' or '#'): ${kind} URLs here are a location only`);
  if (kind === 'file') return parseFileUrl(slashes !== undefined, authority, rawPath);
  return parseS3Url(slashes !== undefined, authority, rawPath);
}

function parseFileUrl(hasAuthority: boolean, host: string, rawPath: string): ParsedOffsiteUrl {
  if (!hasAuthority || !rawPath.startsWith('/')) fail('file URL needs an absolute path, written file:///absolute/path');
  if (host === '.' || host === '..' || host === '~')
    fail(`file URL needs an absolute path, written file:///absolute/path (not file://${host}/…)`);
  if (host !== '') fail(`file URL must not name a host (${host}); write file:///absolute/path for a local directory`);
  // Refused rather than resolved: '/backups/../etc' is more likely a mistake than a wish for '/etc'.
  const dotSegment = (segment: string) => ['.', '..'].includes(segment.replace(/%2e/gi, '.'));
  if (rawPath.split('/').some(dotSegment)) {
    fail("file URL's path must not have '.' or '..' segments");
  }
  let local: string;
  try {
    local = fileURLToPath(`file://${rawPath}`);
  } catch (error) {
    // fileURLToPath refuses an encoded '/' (%2F) or NUL, with a message of its own.
    fail(`file URL's path is not usable: ${(error as Error).message}`);
  }
  // One form per directory: no trailing '/', no '//' (the root itself stays '/').
  return { kind: 'file', path: path.normalize(local).replace(/(.)\/$/, '$1') };
}

function parseS3Url(hasAuthority: boolean, bucket: string, rawPath: string): ParsedOffsiteUrl {
  if (!hasAuthority || bucket === '') fail('s3 URL needs a bucket: s3://bucket or s3://bucket/prefix');
  if (bucket.includes(':')) fail('s3 URL names a bucket, not a host and port; the endpoint is configured apart');
  if (!BUCKET.test(bucket)) {
    fail(`s3 URL's bucket ${JSON.stringify(bucket)} is not a valid bucket name (3-63 lowercase letters, digits, '.' or '-')`);
  }
  // A trailing '/' (s3://bucket/backups/) names the same prefix as without it.
  const trimmed = rawPath.replace(/^\//, '').replace(/\/$/, '');
  if (trimmed === '') return { kind: 's3', bucket, prefix: '' };
  const segments = trimmed.split('/').map((segment) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      fail(`s3 URL's prefix has a malformed %-escape in ${JSON.stringify(segment)}`);
    }
    if (decoded === '') fail("s3 URL's prefix must not have an empty segment ('//')");
    if (decoded === '.' || decoded === '..') fail("s3 URL's prefix must not have '.' or '..' segments");
    if (decoded.includes('/') || decoded.includes('\\')) fail("s3 URL's prefix must not hold an encoded '/' or a backslash");
    if (CONTROL.test(decoded)) fail("s3 URL's prefix must not hold a control character");
    return decoded;
  });
  return { kind: 's3', bucket, prefix: segments.join('/') };
}

function fail(reason: string): never {
  throw new Error(`OFFSITE_URL ${reason}`);
}
