import { AppError } from '../errors/app-error.ts';
import { canBeStoredKey } from './input-validation.ts';

/**
 * Keyset pagination: a cursor is the sort key of the last item of a page, opaque to clients
 * (base64url JSON). Unlike an offset, it neither skips nor repeats items when rows arrive between
 * two pages.
 */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/**
 * The key of a cursor with the given element types; a cursor this service did not issue → 400.
 * Numbers in keys are epoch-ms times (bigint columns): only a non-negative safe integer can be one,
 * and anything else (1.5, 1e308, 2^63, -1) would reach the query as a value PostgreSQL refuses
 * (or SQLite compares as a real), so it is refused here like any other forged cursor.
 */
export function decodeCursor<const T extends readonly ('string' | 'number')[]>(
  cursor: string,
  shape: T,
): { [K in keyof T]: T[K] extends 'string' ? string : number } {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  const fits =
    Array.isArray(key) &&
    key.length === shape.length &&
    key.every((part, i) => typeof part === shape[i] && (typeof part === 'string' ? canBeStoredKey(part) : isKeyNumber(part)));
  if (!fits)
    throw new AppError('VALIDATION_FAILED', 'cursor is not one this service issued; pass the `next` value of the previous page unchanged');
  return key as never;
}

function isKeyNumber(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** Items beyond `limit` (one extra row is fetched) mean there is a next page. */
export function pageFrom<T>(
  rows: T[],
  limit: number,
  keyOf: (last: T) => readonly (string | number)[],
): { items: T[]; next: string | null } {
  if (rows.length <= limit) return { items: rows, next: null };
  const items = rows.slice(0, limit);
  return { items, next: encodeCursor(keyOf(items[items.length - 1]!)) };
}
