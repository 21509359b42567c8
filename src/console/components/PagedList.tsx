import type { ReactNode } from 'react'
import { ServerPaged, type ServerPagedProps } from './ServerPaged.tsx'

interface PagedListProps<T> extends ServerPagedProps<T> {
  renderItem: (item: T) => ReactNode
  itemKey: (item: T) => string
}

/**
 * A list of cards paged on the server (ServerPaged), for rows too rich for a table's cells (a
 * delivery's request and response); `label` names the list for screen readers.
 */
export function PagedList<T>({ renderItem, itemKey, ...paging }: PagedListProps<T>) {
  return (
    <ServerPaged {...paging}>
      {(items) => (
        <ol className="card-list" aria-label={paging.label}>
          {items.map((item) => (
            <li key={itemKey(item)} className="card-item">
              {renderItem(item)}
            </li>
          ))}
        </ol>
      )}
    </ServerPaged>
  )
}
