import { ServerPaged, type ServerPagedProps } from './ServerPaged.tsx'
import { DataTable, type Column } from './Table.tsx'

interface PagedTableProps<T> extends Omit<ServerPagedProps<T>, 'label'> {
  /** The table's caption, read out by screen readers and shown above it. */
  caption: string
  columns: Column<T>[]
  rowKey: (row: T) => string
}

/** A table paged on the server (ServerPaged). On a phone each row becomes a card of labelled cells. */
export function PagedTable<T>({ caption, columns, rowKey, ...paging }: PagedTableProps<T>) {
  return (
    <ServerPaged label={caption} {...paging}>
      {(rows) => <DataTable caption={caption} columns={columns} rows={rows} rowKey={rowKey} />}
    </ServerPaged>
  )
}
