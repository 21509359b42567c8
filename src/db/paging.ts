import { sql, type SelectQueryBuilder } from 'kysely'

/**
 * One page of the rows `query` selects, newest first by their time-ordered id, with how many it
 * selects in all. `query` is the filtered table (`db.selectFrom(t).where(...)`), before any select.
 */
export async function pageOf<DB, TB extends keyof DB>(query: SelectQueryBuilder<DB, TB, {}>, page: number, pageSize: number) {
  const rows = await query
    .selectAll()
    .orderBy(sql`id`, 'desc')
    .limit(pageSize)
    .offset((page - 1) * pageSize)
    .execute()
  const counted = (await query.select(sql<number>`count(*)`.as('total')).executeTakeFirstOrThrow()) as { total: number }
  return { rows, total: Number(counted.total) }
}
