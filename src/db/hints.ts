import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely'
import { dialectOf } from './client.ts'
import type { Db } from './schema.ts'

/*
 * Hints to SQLite's query planner, which without statistics guesses that an equality on an indexed
 * column picks out a few rows. PostgreSQL plans from its own statistics: there these are no-ops.
 */

/**
 * `condition`, marked as holding for most rows: the planner then reads the table through instead
 * of looking each row up by an index. For conditions such as "this project's contacts" on a
 * server that mostly serves one project.
 */
export const holdsForMost = (db: Db, condition: Expression<SqlBool>): RawBuilder<SqlBool> =>
  dialectOf(db) === 'postgres' ? sql<SqlBool>`${condition}` : sql<SqlBool>`likelihood(${condition}, 0.9)`
