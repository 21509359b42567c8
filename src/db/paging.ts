import { sql, type SelectQueryBuilder } from 'kysely'
import { NEWEST, ordered, type Order } from './sorting.ts'

/**
 * One page of the rows `query` selects, in `order` (newest first by their time-ordered id when
 * absent), with how many it selects in all. `query` is the filtered table
 * (`db.selectFrom(t).where(...)`), before any select. The id breaks ties, so pages never overlap.
 */
export async function pageOf<DB, TB extends keyof DB>(query: SelectQueryBuilder<DB, TB, {}>, page: number, pageSize: number, order: Order = NEWEST) {
  const rows = await ordered(query.selectAll(), order)
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .execute()
  const counted = (await query.select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow()) as { total: number }
  return { rows, total: Number(counted.total) }
}
