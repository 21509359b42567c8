import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import { Button } from 'react-aria-components'
import { currentCursor, firstPage, nextPage, pageRange, previousPage, type Page } from '../lib/cursor-pager.ts'
import { ErrorState, Loading } from './States.tsx'

export interface ServerPagedProps<T> {
  /** The list's name: in its loading state and naming its pager. */
  label: string
  /** The query key of the list; the cursor is added to it. */
  queryKey: readonly unknown[]
  /** One page from the API, by its cursor (null for the first). */
  fetchPage: (cursor: string | null, size: number) => Promise<Page<T>>
  /** What an empty list says. */
  empty: ReactNode
  pageSize?: number
  /** How soon to read the page shown again, given its items; false not to. */
  refreshEvery?: (items: T[]) => number | false
}

/**
 * A list paged on the server: one page is asked for at a time, by the cursor the previous answer
 * gave, and Previous goes back through the cursors already seen. The page shown stays while the
 * next one loads. `children` draws a page's items (a table, a list of cards).
 */
export function ServerPaged<T>({ label, queryKey, fetchPage, empty, pageSize = 20, refreshEvery, children }: ServerPagedProps<T> & { children: (items: T[]) => ReactNode }) {
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
      {children(items)}
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
