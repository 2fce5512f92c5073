import { AppError, isAppError } from '../errors/app-error.ts';
import { errnoCode } from '../errors/errno-code.ts';

/** Turns the filesystem failures a caller can act on into AppErrors; anything else passes unchanged. */
export function toStorageError(error: unknown): unknown {
  if (isAppError(error)) return error;
  switch (errnoCode(error)) {
    case 'ENOSPC':
    case 'EDQUOT':
      return new AppError('INSUFFICIENT_STORAGE', 'the storage is full; nothing was changed');
    case 'ENAMETOOLONG':
      return new AppError('INVALID_PATH', 'the path is too long for the filesystem');
    default:
      return error;
  }
}
