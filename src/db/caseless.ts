import { sql, type RawBuilder, type SqlBool } from 'kysely'
import type { Dialect } from './client.ts'

/*
 * Text compared ignoring case, as the segment conditions and the campaign search promise it:
 * ASCII letters only (`É` and `é` differ). SQLite's NOCASE and LIKE fold exactly these; on
 * PostgreSQL LIKE keeps case and lower() follows the database's locale, so both sides are folded
 * with translate(), which touches A-Z alone.
 */

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const LOWER = 'abcdefghijklmnopqrstuvwxyz'

/** `text` with A-Z lowered, as PostgreSQL's side of a comparison is. */
export const asciiLower = (text: string): string => text.replace(/[A-Z]/g, (ch) => ch.toLowerCase())

const folded = (expression: RawBuilder<unknown>) => sql`translate(${expression}, ${sql.lit(UPPER)}, ${sql.lit(LOWER)})`

/** `expression` equals `value`, or differs from it (`negate`), ignoring ASCII case. */
export function equalsIgnoringCase(dialect: Dialect, expression: RawBuilder<unknown>, value: string, negate = false): RawBuilder<SqlBool> {
  const operator = sql.raw(negate ? '<>' : '=')
  if (dialect === 'sqlite') return sql`${expression} ${operator} ${value} COLLATE NOCASE`
  return sql`${folded(expression)} ${operator} ${asciiLower(value)}`
}

/** `expression` matches the LIKE `pattern` (`\` escapes `%`, `_` and itself), ignoring ASCII case. */
export function likeIgnoringCase(dialect: Dialect, expression: RawBuilder<unknown>, pattern: string): RawBuilder<SqlBool> {
  if (dialect === 'sqlite') return sql`${expression} LIKE ${pattern} ESCAPE '\\'`
  return sql`${folded(expression)} LIKE ${asciiLower(pattern)} ESCAPE '\\'`
}

/** `text` as a LIKE pattern that matches it literally, with `%` put where `where` says. */
export function likePattern(text: string, where: 'contains' | 'startsWith' | 'endsWith'): string {
  const escaped = text.replace(/[\\%_]/g, (ch) => '\\' + ch)
  return where === 'contains' ? `%${escaped}%` : where === 'startsWith' ? `${escaped}%` : `%${escaped}`
}

/** Some of `columns` holds `text`, ignoring ASCII case; `%` and `_` in it are taken literally (a list's search). */
export function containsIgnoringCase(dialect: Dialect, columns: readonly string[], text: string): RawBuilder<SqlBool> {
  const pattern = likePattern(text, 'contains')
  return sql<SqlBool>`(${sql.join(columns.map((column) => likeIgnoringCase(dialect, sql.ref(column), pattern)), sql` OR `)})`
}
