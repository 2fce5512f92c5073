import { useState } from 'preact/hooks';

/**
 * Cursor paging as the API offers it: the cursors of the pages seen are kept, so Previous goes
 * back without the service having to page backwards.
 */
export function usePages() {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  return {
    cursor,
    pageNumber: cursors.length,
    next: (nextCursor: string) => setCursors((list) => [...list, nextCursor]),
    previous: () => setCursors((list) => (list.length > 1 ? list.slice(0, -1) : list)),
    reset: () => setCursors([undefined]),
  };
}

export function Pager(props: { pageNumber: number; next: string | null | undefined; onNext(): void; onPrevious(): void; label: string }) {
  if (props.pageNumber === 1 && !props.next) return null;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" class="button" onClick={props.onPrevious} disabled={props.pageNumber === 1}>
        ← Previous
      </button>
      <span>Page {props.pageNumber}</span>
      <button type="button" class="button" onClick={props.onNext} disabled={!props.next}>
        Next →
      </button>
    </nav>
  );
}
