/** A page of a list: at most `limit` items, and an opaque cursor to the next page (null on the last). */

export interface PageRequest {
  limit: number; // 1..1000
  cursor?: string | undefined; // opaque, from a previous page's `next`
}

export interface Page<T> {
  items: T[];
  next: string | null;
}
