import { sql, type AliasableExpression, type ExpressionBuilder, type SqlBool } from 'kysely'
import type { DB } from '../../db/schema.ts'

// The suppression rule as a query fragment, so that a query of another table that must leave
// suppressed addresses out (a campaign's audience, its next recipients) uses this one statement of
// it rather than its own copy of the SQL. A contact is suppressed when its project's list holds
// its address key.

/** True when the contact row under `alias` (a `contacts` row) is on its project's suppression list. */
export function isSuppressed(eb: ExpressionBuilder<any, any>, alias: string): AliasableExpression<SqlBool> {
  return (eb as ExpressionBuilder<DB, 'suppressions'>).exists(
    (eb as ExpressionBuilder<DB, never>)
      .selectFrom('suppressions as s')
      .select(sql.lit(1).as('one'))
      .where('s.project_id', '=', sql.ref<number>(`${alias}.project_id`))
      .where('s.email_key', '=', sql.ref<string>(`${alias}.email_key`)),
  )
}

/** True when the contact row under `alias` is not on its project's suppression list. */
export function notSuppressed(eb: ExpressionBuilder<any, any>, alias: string): AliasableExpression<SqlBool> {
  return eb.not(isSuppressed(eb, alias))
}
