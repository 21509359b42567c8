/** Sorting a table's rows in the browser: the rows of the page shown, by one column's value. */

export type SortDirection = 'ascending' | 'descending'

export interface SortOrder {
  key: string
  direction: SortDirection
}

/** What a column sorts by: a number, or text compared as a person reads it ("item 2" before "item 10"). */
export type SortValue = string | number | null | undefined

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' })

/** a before b, ascending; an empty value always comes last, whichever the direction. */
function compare(a: SortValue, b: SortValue, direction: SortDirection): number {
  const emptyA = a === null || a === undefined || a === ''
  const emptyB = b === null || b === undefined || b === ''
  if (emptyA || emptyB) return emptyA === emptyB ? 0 : emptyA ? 1 : -1
  const order = typeof a === 'number' && typeof b === 'number' ? a - b : collator.compare(String(a), String(b))
  return direction === 'ascending' ? order : -order
}

/** The rows in the order asked for (a stable sort: rows of equal value keep their order); unchanged when no order is given. */
export function sortRows<T>(rows: readonly T[], valueOf: ((row: T) => SortValue) | undefined, order: SortOrder | undefined): T[] {
  if (!order || !valueOf) return [...rows]
  return rows
    .map((row, index) => ({ row, index, value: valueOf(row) }))
    .sort((a, b) => compare(a.value, b.value, order.direction) || a.index - b.index)
    .map(({ row }) => row)
}

/** The order after a click on a column's header: ascending first, then the other way. */
export function nextOrder(current: SortOrder | undefined, key: string): SortOrder {
  return { key, direction: current?.key === key && current.direction === 'ascending' ? 'descending' : 'ascending' }
}
