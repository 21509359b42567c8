import { ServerPaged, type ServerPagedProps } from './ServerPaged.tsx'
import { DataTable, type Column, type SortOrder } from './Table.tsx'

interface PagedTableProps<T> extends Omit<ServerPagedProps<T>, 'label'> {
  /** The table's caption, read out by screen readers and shown above it. */
  caption: string
  columns: Column<T>[]
  rowKey: (row: T) => string
  /** The order the page's rows are first shown in, by a column with a sortValue (the browser sorts the page shown). */
  defaultSort?: SortOrder
}

/**
 * A table paged on the server (ServerPaged). Columns with a sortValue sort the page shown, in the
 * browser. On a phone each row becomes a card of labelled cells.
 */
export function PagedTable<T>({ caption, columns, rowKey, defaultSort, ...paging }: PagedTableProps<T>) {
  return (
    <ServerPaged label={caption} {...paging}>
      {(rows) => <DataTable caption={caption} columns={columns} rows={rows} rowKey={rowKey} defaultSort={defaultSort} />}
    </ServerPaged>
  )
}
