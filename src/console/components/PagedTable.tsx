import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import { Button } from 'react-aria-components'
import { currentCursor, firstPage, nextPage, pageRange, previousPage, type Page } from '../lib/paging.ts'
import { ErrorState, Loading } from './States.tsx'
import { DataTable, type Column } from './Table.tsx'

interface PagedTableProps<T> {
  /** The table's caption, read out by screen readers and shown above it. */
  caption: string
  /** The query key of the list; the cursor is added to it. */
  queryKey: readonly unknown[]
  /** One page from the API, by its cursor (null for the first). */
  fetchPage: (cursor: string | null, size: number) => Promise<Page<T>>
  columns: Column<T>[]
  rowKey: (row: T) => string
  /** What an empty list says. */
  empty: ReactNode
  pageSize?: number
}

/**
 * A list paged on the server: one page is asked for at a time, by the cursor the previous answer
 * gave, and Previous goes back through the cursors already seen. The page shown stays while the
 * next one loads. On a phone each row becomes a card of labelled cells.
 */
export function PagedTable<T>({ caption, queryKey, fetchPage, columns, rowKey, empty, pageSize = 20 }: PagedTableProps<T>) {
  const [pager, setPager] = useState(firstPage)
  const cursor = currentCursor(pager)
  const page = useQuery({ queryKey: [...queryKey, 'page', cursor, pageSize], queryFn: () => fetchPage(cursor, pageSize), placeholderData: keepPreviousData })
  if (page.error && !page.data) return <ErrorState error={page.error} retry={() => page.refetch()} />
  if (!page.data) return <Loading label={`Loading ${caption.toLowerCase()}`} />
  const { items, next, total } = page.data
  if (items.length === 0 && pager.index === 0) return <>{empty}</>
  return (
    <div className="paged" aria-busy={page.isFetching}>
      <DataTable caption={caption} columns={columns} rows={items} rowKey={rowKey} />
      {(pager.index > 0 || next !== null) && (
        <nav className="pager" aria-label={`${caption} pages`}>
          <span className="muted">{pageRange(pager.index, pageSize, items.length, total)}</span>
          <Button className="button" isDisabled={pager.index === 0 || page.isFetching} onPress={() => setPager(previousPage)}>
            Previous page
          </Button>
          <Button className="button" isDisabled={next === null || page.isFetching} onPress={() => setPager((p) => nextPage(p, next))}>
            Next page
          </Button>
        </nav>
      )}
      {page.error && <ErrorState error={page.error} retry={() => page.refetch()} />}
    </div>
  )
}
