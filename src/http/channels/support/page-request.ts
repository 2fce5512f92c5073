import { AppError } from '../../../errors/app-error.ts';
import type { PageRequest } from '../../../model/paging.ts';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

/**
 * The page a listing asked for. The query schema coerces `limit`, and "Infinity" or a
 * 400-digit number coerce to a number no database accepts (found by the fuzz suite: a 500);
 * only a whole number from 1 to 1000 gets through.
 */
export function pageRequestOf(query: { limit?: number | undefined; cursor?: string | undefined }): PageRequest {
  const limit = query.limit ?? DEFAULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new AppError('VALIDATION_FAILED', `limit must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  return { limit, cursor: query.cursor };
}
