import { type SelectQueryBuilder, type StringReference, sql } from 'kysely';
import { AppError } from '../errors/app-error.ts';
import type { Page, PageRequest } from '../model/paging.ts';
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

/**
 * A list ordered by one string column whose values are unique in it: a folder's filenames, a
 * channel's folders or backups; or by two, when the first is unique only with the second (the
 * files of a folder and of its look-alike spellings, by filename then folder).
 */
interface KeyOrder<DB, TB extends keyof DB, T> {
  /** The column, as the query names it (`v.filename`). */
  column: StringReference<DB, TB>;
  /** The second column, if any: the cursor then holds both values. */
  tieBreak?: StringReference<DB, TB> | undefined;
  descending?: boolean;
  /** The columns' values in an item: the cursor of a page that ends with it. */
  keyOf(item: T): readonly string[];
}

/** One page of `query`'s rows, as items, in `order`: those after the cursor's key. */
export async function pageByKey<DB, TB extends keyof DB, O, T>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  toItem: (row: O) => T,
  order: KeyOrder<DB, TB, T>,
): Promise<Page<T>> {
  const columns = [order.column, ...(order.tieBreak === undefined ? [] : [order.tieBreak])].map((column) => sql.ref(column));
  const shape = columns.map(() => 'string' as const);
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, shape);
  const key = sql.join(columns);
  const values = sql.join(after ?? []);
  const comparison = sql.raw(order.descending ? '<' : '>');
  // Row values compare the same on both engines (SQLite has them since 3.15).
  let ordered = after === undefined ? query : query.where(sql<boolean>`(${key}) ${comparison} (${values})`);
  for (const column of columns) ordered = ordered.orderBy(column, order.descending ? 'desc' : 'asc');
  const rows = await ordered.limit(page.limit + 1).execute();
  return pageFrom(rows.map(toItem), page.limit, (item) => order.keyOf(item));
}
