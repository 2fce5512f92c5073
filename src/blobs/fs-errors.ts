import { AppError, isAppError } from '../errors/app-error.ts';
import { errnoCode } from '../errors/errno-code.ts';

/**
 * The filesystem refusing writes as a whole: a volume remounted read-only, a directory whose owner
 * or mode changed under the service, a failing disk. Not the client's doing, and not a bug: 503.
 */
const UNWRITABLE_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'EIO']);

/**
 * Turns the filesystem failures a caller can act on into AppErrors; anything else passes unchanged.
 * The client's message names no path (the service's layout is none of its business); the original
 * error stays the cause, which the log shows.
 */
export function toStorageError(error: unknown): unknown {
  if (isAppError(error)) return error;
  const code = errnoCode(error);
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new AppError('INSUFFICIENT_STORAGE', 'the storage is full; nothing was changed', undefined, { cause: error });
    case 'ENAMETOOLONG':
      return new AppError('INVALID_PATH', 'the path is too long for the filesystem');
    default:
      return code !== undefined && UNWRITABLE_CODES.has(code) ? storageUnwritable(error) : error;
  }
}

function storageUnwritable(cause: unknown): AppError {
  return new AppError(
    'STORAGE_UNAVAILABLE',
    `The file storage cannot be written (${errnoCode(cause)}); nothing was changed, and an operator must fix the storage`,
    undefined,
    { cause },
  );
}
