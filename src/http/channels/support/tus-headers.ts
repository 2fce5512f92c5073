import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../errors/app-error.ts';
import type { ResumableUpload } from '../../../model/uploads.ts';

/** The one tus version this service speaks. */
export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = 'creation,creation-with-upload,creation-defer-length,termination,expiration,checksum';
/** A PATCH's (and creation-with-upload's) body type. */
export const OFFSET_OCTET_STREAM = 'application/offset+octet-stream';

const DIGITS = /^(0|[1-9]\d{0,15})$/;

function single(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) throw invalid(`${name} is given more than once`);
  return value;
}

/** Tus-Resumable: 1.0.0 on every request but OPTIONS; otherwise 412, with the versions this service speaks. */
export function checkTusResumable(request: FastifyRequest): void {
  const version = single(request, 'tus-resumable');
  if (version === TUS_VERSION) return;
  throw new AppError(
    'TUS_VERSION_UNSUPPORTED',
    version === undefined
      ? 'Tus-Resumable: 1.0.0 is required on this request'
      : `Tus-Resumable ${version} is not spoken here; only ${TUS_VERSION}`,
    { tusVersion: TUS_VERSION },
  );
}

/** A byte count header (Upload-Length, Upload-Offset); undefined when absent. */
export function byteCountHeader(request: FastifyRequest, name: 'upload-length' | 'upload-offset'): number | undefined {
  const value = single(request, name);
  if (value === undefined) return undefined;
  if (!DIGITS.test(value) || !Number.isSafeInteger(Number(value)))
    throw invalid(`${headerName(name)} must be a whole number of bytes, not ${JSON.stringify(value.slice(0, 40))}`);
  return Number(value);
}

/** The creation's length: Upload-Length, or null with Upload-Defer-Length: 1; exactly one of the two. */
export function creationLength(request: FastifyRequest): number | null {
  const length = byteCountHeader(request, 'upload-length');
  const defer = single(request, 'upload-defer-length');
  if (defer !== undefined && defer !== '1') throw invalid('Upload-Defer-Length must be 1');
  if (length !== undefined && defer !== undefined) throw invalid('Send Upload-Length or Upload-Defer-Length: 1, not both');
  if (length === undefined && defer === undefined) throw invalid('Upload-Length is required (or Upload-Defer-Length: 1 to send it later)');
  return length ?? null;
}

/** Upload-Checksum: "sha256 <base64>"; undefined when absent. Another algorithm is refused (400), as tus says. */
export function checksumHeader(request: FastifyRequest): Buffer | undefined {
  const value = single(request, 'upload-checksum');
  if (value === undefined) return undefined;
  const [algorithm, digest, ...rest] = value.trim().split(' ');
  if (algorithm !== 'sha256')
    throw invalid(`Upload-Checksum's algorithm must be sha256 (Tus-Checksum-Algorithm), not ${JSON.stringify(algorithm)}`);
  const bytes = digest === undefined || rest.length > 0 ? undefined : Buffer.from(digest, 'base64');
  if (bytes?.length !== 32 || bytes.toString('base64') !== digest)
    throw invalid('Upload-Checksum must be "sha256 " and the base64 of 32 bytes');
  return bytes;
}

/** A body is application/offset+octet-stream, as tus requires (415 otherwise). */
export function checkOffsetStream(request: FastifyRequest): void {
  const type = single(request, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== OFFSET_OCTET_STREAM) {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `An upload's bytes are sent as Content-Type: ${OFFSET_OCTET_STREAM}, not ${type ?? 'none'}`,
    );
  }
}

/** Whether the request carries a body (creation-with-upload): a length above zero, or chunked. */
export function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

/** Where the upload stands, as HEAD, PATCH and the creation answer it. */
export function standing(reply: FastifyReply, upload: ResumableUpload): FastifyReply {
  reply.header('Upload-Offset', String(upload.offset));
  if (upload.state === 'open') reply.header('Upload-Expires', new Date(upload.expiresAt).toUTCString());
  if (upload.etag !== null) reply.header('ETag', upload.etag);
  return reply;
}

const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_all, dash: string, letter: string) => dash + letter.toUpperCase());
const invalid = (message: string) => new AppError('VALIDATION_FAILED', message);
