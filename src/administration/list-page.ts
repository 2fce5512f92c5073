import { AppError } from '../errors/app-error.ts';
import type { Page, PageRequest } from '../model/paging.ts';

/**
 * One page of a short list already in memory (a tenant's admins), ordered by (createdAt, id): the
 * cursor is the key of the last item given (base64url JSON, as the database listings' cursors),
 * so a page neither skips nor repeats an item when others arrive in between.
 */
export function pageOf<T extends { createdAt: number; id: string }>(items: readonly T[], page: PageRequest): Page<T> {
  const sorted = [...items].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  let start = 0;
  if (page.cursor !== undefined) {
    const [createdAt, id] = cursorKey(page.cursor);
    start = sorted.findIndex((item) => item.createdAt > createdAt || (item.createdAt === createdAt && item.id > id));
    if (start === -1) start = sorted.length;
  }
  const slice = sorted.slice(start, start + page.limit);
  const last = slice[slice.length - 1];
  const more = start + page.limit < sorted.length;
  return { items: slice, next: more && last ? Buffer.from(JSON.stringify([last.createdAt, last.id])).toString('base64url') : null };
}

function cursorKey(cursor: string): [number, string] {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (!Array.isArray(key) || key.length !== 2 || !Number.isSafeInteger(key[0]) || typeof key[1] !== 'string') {
    throw new AppError('VALIDATION_FAILED', 'cursor is not one this service issued; pass the `next` value of the previous page unchanged');
  }
  return [key[0] as number, key[1] as string];
}
