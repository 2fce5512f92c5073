import { AppError } from '../errors/app-error.ts';
import type { FileRecord, Precondition, TagCondition } from '../model/files.ts';

/** The strong ETag of a live file: its content's sha256, so equal bytes have equal tags. */
export function entityTagOf(file: Pick<FileRecord, 'sha256'>): string {
  return `"${file.sha256}"`;
}

/**
 * Refuses (PRECONDITION_FAILED) a write whose conditions the live file `current` (undefined: none)
 * does not meet. The caller holds the file's lock and read `current` under it, so the file cannot
 * change between this check and the write. If-Match compares strongly (a weak tag never matches),
 * If-None-Match weakly (RFC 9110 §13.1.1, §13.1.2); If-Match is evaluated first.
 */
export function checkPrecondition(precondition: Precondition, current: FileRecord | undefined): void {
  const etag = current && entityTagOf(current);
  const { ifMatch, ifNoneMatch } = precondition;
  if (ifMatch !== undefined && !ifMatchMet(ifMatch, etag)) throw failed(etag, 'If-Match');
  if (ifNoneMatch !== undefined) {
    const matched = etag !== undefined && (ifNoneMatch === 'any' || ifNoneMatch.some((tag) => tag.opaque === etag));
    if (matched) throw failed(etag, 'If-None-Match');
  }
}

/**
 * Whether If-Match holds for a resource whose current strong ETag is `etag` (undefined: it has
 * none): `*` for any, else one listed tag equal to it, compared strongly (a weak tag never matches).
 */
export function ifMatchMet(ifMatch: TagCondition, etag: string | undefined): boolean {
  return etag !== undefined && (ifMatch === 'any' || ifMatch.some((tag) => !tag.weak && tag.opaque === etag));
}

function failed(etag: string | undefined, header: string): AppError {
  const state = etag === undefined ? 'the file does not exist' : `the file's current ETag is ${etag}`;
  return new AppError('PRECONDITION_FAILED', `${header} is not met: ${state}; nothing was changed`, { currentEtag: etag ?? null });
}
