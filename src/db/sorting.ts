import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely'

export const DIRECTIONS = ['asc', 'desc'] as const
export type Direction = (typeof DIRECTIONS)[number]

/**
 * A list's order: a column, then the row's id where the column ties, both in `dir`. Every order
 * a list offers has an index (project_id, column, id) so that a page reads a range of it.
 */
export interface Order {
  column: string
  dir: Direction
  /** The column is unique in a project: it alone orders, and no id is needed to break ties. */
  unique?: boolean
}

/** The default order: newest first by the time-ordered id. */
export const NEWEST: Order = { column: 'id', dir: 'desc', unique: true }

/** Orders `query` by `order`, its table's columns named with `alias.` when given. */
export function ordered<Q extends { orderBy: (expression: Expression<any>, dir: Direction) => Q }>(query: Q, order: Order, alias?: string): Q {
  const ref = (column: string) => sql.ref(alias ? `${alias}.${column}` : column)
  const byColumn = query.orderBy(ref(order.column), order.dir)
  return order.unique ? byColumn : byColumn.orderBy(ref('id'), order.dir)
}

/**
 * The rows after the one a keyset cursor names, in `order`: those whose (column, id) comes after
 * (value, id), as one row-value comparison, which both SQLite and PostgreSQL read from the index.
 */
export function after(order: Order, cursor: { value: string | number; id: string }, alias?: string) {
  const ref = (column: string) => sql.ref(alias ? `${alias}.${column}` : column)
  const op = sql.raw(order.dir === 'desc' ? '<' : '>')
  return (_: ExpressionBuilder<any, any>): Expression<SqlBool> =>
    order.unique ? sql<SqlBool>`${ref(order.column)} ${op} ${cursor.value}` : sql<SqlBool>`(${ref(order.column)}, ${ref('id')}) ${op} (${cursor.value}, ${cursor.id})`
}
