import type { ComponentChildren } from 'preact';
import { PagedList, type PagedListProps } from './paged-list.tsx';

export interface Column<T> {
  header: ComponentChildren;
  /** Classes of the column's header and cells alike ("num", "wide-only"). */
  class?: string;
  /** Classes of its body cells only ("name-cell", "wrap"). */
  cellClass?: string;
  /** The cell that names the row: a <th scope="row">. */
  rowHeader?: boolean;
  cell(item: T): ComponentChildren;
}

interface PagedTableProps<T> extends Omit<PagedListProps<T>, 'children'> {
  /** The table's own class beside "table" ("files-table"). */
  class?: string;
  /** Set while a reload runs, for a table whose rows stay on screen meanwhile (aria-busy). */
  busy?: boolean;
  columns: Column<T>[];
  rowKey(item: T): string;
  /** A last column of buttons and links, headed for screen readers only; a row with none has an empty cell. */
  actions?(item: T): ComponentChildren;
  /** Shown under the table, with the rows. */
  footer?: ComponentChildren;
}

const classes = (...names: (string | undefined)[]) => names.filter(Boolean).join(' ') || undefined;

/** A paged list as a table: one header row of columns, one row an item. */
export function PagedTable<T>({ class: tableClass, busy, columns, rowKey, actions, footer, ...list }: PagedTableProps<T>) {
  return (
    <PagedList {...list}>
      {(items) => (
        <>
          <div class="table-wrap">
            <table class={classes('table', tableClass)} aria-busy={busy}>
              <thead>
                <tr>
                  {columns.map((column, i) => (
                    <th key={i} scope="col" class={column.class}>
                      {column.header}
                    </th>
                  ))}
                  {actions && (
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {items.map((item) => (
                  <tr key={rowKey(item)}>
                    {columns.map((column, i) => {
                      const cellClass = classes(column.class, column.cellClass);
                      return column.rowHeader ? (
                        <th key={i} scope="row" class={cellClass}>
                          {column.cell(item)}
                        </th>
                      ) : (
                        <td key={i} class={cellClass}>
                          {column.cell(item)}
                        </td>
                      );
                    })}
                    {actions && <td>{actionsOf(actions(item))}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {footer}
        </>
      )}
    </PagedList>
  );
}

/** A row with nothing to offer (the admin may not) keeps its cell, empty. */
function actionsOf(content: ComponentChildren) {
  return content ? <div class="actions">{content}</div> : null;
}
