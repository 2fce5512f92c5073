import { AppError } from '../errors/app-error.ts';
import type { ByteRange } from './blob-storage.ts';

// The refusals of the BlobStorage contract, worded once for every backend.

/** A range must be whole numbers with 0 <= start <= end before any backend is asked. */
export function assertRangeShape({ start, end }: ByteRange): void {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new AppError('RANGE_NOT_SATISFIABLE', 'a range needs whole numbers with 0 <= start <= end');
  }
}

export function rangeBeyondEnd(): AppError {
  return new AppError('RANGE_NOT_SATISFIABLE', 'the range starts at or beyond the end of the blob');
}

/** copy() from a key that holds no blob. */
export function sourceNotFound(): AppError {
  return new AppError('NOT_FOUND', 'the source blob does not exist');
}

/**
 * copy() onto an existing key. Callers choose fresh keys (blob-layout.ts), so reaching this is a
 * bug: a server error rather than a client one.
 */
export function targetExists(): AppError {
  return new AppError('INTERNAL_ERROR', "the copy's target already exists; nothing was changed");
}

export function bodyTooLarge(maxBytes: number): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `the body is larger than the limit of ${maxBytes} bytes`);
}

/** Refuses, before anything is replaced, bytes whose sha256 is not the one expected (when one is). */
export function assertExpectedSha256(bytes: 'source' | 'copy', actual: string, expected: string | undefined): void {
  if (expected !== undefined && actual !== expected.toLowerCase()) {
    throw new AppError('INTEGRITY_FAILED', `the ${bytes}'s sha256 ${actual} is not the expected ${expected}; nothing was replaced`);
  }
}

/** A blob whose size is not the one its record declares: refused before a byte of it is sent. */
export function assertExpectedSize(actual: number, expected: { size: number } | undefined): void {
  if (expected !== undefined && actual !== expected.size) {
    throw new AppError('INTEGRITY_FAILED', `the stored blob holds ${actual} bytes, not the ${expected.size} its record declares`);
  }
}
