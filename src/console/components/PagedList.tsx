import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import { Button } from 'react-aria-components'
import { currentCursor, firstPage, nextPage, pageRange, previousPage, type Page } from '../lib/paging.ts'
import { ErrorState, Loading } from './States.tsx'

interface PagedListProps<T> {
  /** The list's name, shown as its heading's text is not: read out by screen readers, and naming its pager. */
  label: string
  /** The query key of the list; the cursor is added to it. */
  queryKey: readonly unknown[]
  fetchPage: (cursor: string | null, size: number) => Promise<Page<T>>
  renderItem: (item: T) => ReactNode
  itemKey: (item: T) => string
  empty: ReactNode
  pageSize?: number
  /** How soon to read the page shown again, given its items; false not to. */
  refreshEvery?: (items: T[]) => number | false
}

/**
 * A list of cards paged on the server, for rows too rich for a table's cells (a delivery's
 * request and response): PagedTable's paging (lib/paging.ts), each item rendered in a list item.
 */
export function PagedList<T>({ label, queryKey, fetchPage, renderItem, itemKey, empty, pageSize = 20, refreshEvery }: PagedListProps<T>) {
  const [pager, setPager] = useState(firstPage)
  const cursor = currentCursor(pager)
  const page = useQuery({
    queryKey: [...queryKey, 'page', cursor, pageSize],
    queryFn: () => fetchPage(cursor, pageSize),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (refreshEvery && query.state.data ? refreshEvery(query.state.data.items) : false),
  })
  if (page.error && !page.data) return <ErrorState error={page.error} retry={() => page.refetch()} />
  if (!page.data) return <Loading label={`Loading ${label.toLowerCase()}`} />
  const { items, next, total } = page.data
  if (items.length === 0 && pager.index === 0) return <>{empty}</>
  return (
    <div className="paged" aria-busy={page.isFetching}>
      <ol className="card-list" aria-label={label}>
        {items.map((item) => (
          <li key={itemKey(item)} className="card-item">
            {renderItem(item)}
          </li>
        ))}
      </ol>
      {(pager.index > 0 || next !== null) && (
        <nav className="pager" aria-label={`${label} pages`}>
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
