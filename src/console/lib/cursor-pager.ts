/**
 * Paging over the API's lists, on the server: the console keeps the cursors of the pages it has
 * seen, so Previous goes back without the API having to page backwards. Lists paged by number
 * (emails, suppressions) use the page number as their cursor.
 */

export interface Page<T> {
  items: T[]
  /** The cursor of the next page; null on the last. */
  next: string | null
  /** How many there are in all, when the API says. */
  total?: number
}

export interface Pager {
  /** The cursor of each page seen so far; the first page's is null. */
  cursors: (string | null)[]
  /** Which of them is shown. */
  index: number
}

export const firstPage: Pager = { cursors: [null], index: 0 }

export const currentCursor = (pager: Pager) => pager.cursors[pager.index] ?? null

/** On to the page after the one shown, whose answer gave `next`; the pages after it are forgotten. */
export function nextPage(pager: Pager, next: string | null): Pager {
  if (next === null) return pager
  return { cursors: [...pager.cursors.slice(0, pager.index + 1), next], index: pager.index + 1 }
}

export function previousPage(pager: Pager): Pager {
  return pager.index === 0 ? pager : { cursors: pager.cursors, index: pager.index - 1 }
}

/** "21–40 of 345", or "21–40" when the total is unknown, for a page of `count` rows of size `size`. */
export function pageRange(index: number, size: number, count: number, total?: number): string {
  if (count === 0) return total === undefined ? 'None' : `0 of ${total}`
  const from = index * size + 1
  const to = index * size + count
  return total === undefined ? `${from}–${to}` : `${from}–${to} of ${total}`
}

/** A list the API pages by cursor: `{ <items>, cursor, hasMore, total? }` (contacts and the like). */
export function fromCursorList<T>(items: T[], answer: { cursor: string | null; hasMore: boolean; total?: number }): Page<T> {
  return { items, next: answer.hasMore ? answer.cursor : null, total: answer.total }
}

/** A list the API pages by number: `{ data, count }`, where cursor is the page number as text. */
export function fromNumberedList<T>(data: T[], count: number, cursor: string | null, size: number): Page<T> {
  const page = cursor === null ? 1 : Number(cursor)
  return { items: data, next: page * size < count ? String(page + 1) : null, total: count }
}
