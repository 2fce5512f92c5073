import type { ComponentChildren } from 'preact';
import type { Page } from '../../client/index.ts';
import { Pager, usePages } from './pager.tsx';
import { type Loaded, useLoad } from './use-load.ts';

export interface PagedLoad<T> extends Loaded<Page<T>> {
  pages: ReturnType<typeof usePages>;
}

/**
 * One page of a list at a time: `load` gets the cursor of the page to show (undefined for the
 * first). `key` names what is listed (channel, folder, filters…); the cursor is added to it.
 */
export function usePagedLoad<T>(load: (cursor: string | undefined) => Promise<Page<T>>, key: string): PagedLoad<T> {
  const pages = usePages();
  const loaded = useLoad(() => load(pages.cursor), `${key}\n${pages.cursor ?? ''}`);
  return { ...loaded, pages };
}

export interface PagedListProps<T> {
  list: PagedLoad<T>;
  /** What the pager's pages are of: "Files" names the navigation "Files pages". */
  label: string;
  /** Shown for a page without items. */
  empty: ComponentChildren;
  /** A later page found empty (its items went since it was linked) says nothing of the list: no `empty` there. */
  emptyOnFirstPageOnly?: boolean;
  /** Shown while the first answer is awaited; a reload keeps the page seen until the new one comes. */
  loading?: string;
  /** The items of a page that has some. */
  children(items: T[]): ComponentChildren;
}

/** A paged list's states in their order: empty, the items, loading, then the pager. */
export function PagedList<T>({ list, label, empty, emptyOnFirstPageOnly, loading, children }: PagedListProps<T>) {
  const items = list.data?.items;
  const showsEmpty = items?.length === 0 && (!emptyOnFirstPageOnly || list.pages.pageNumber === 1);
  return (
    <>
      {showsEmpty && empty}
      {items && items.length > 0 && children(items)}
      {loading && list.loading && !list.data && <p aria-live="polite">{loading}</p>}
      <Pager
        label={label}
        pageNumber={list.pages.pageNumber}
        next={list.data?.next}
        onNext={() => list.data?.next && list.pages.next(list.data.next)}
        onPrevious={list.pages.previous}
      />
    </>
  );
}
