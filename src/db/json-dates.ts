import { sql, type RawBuilder } from 'kysely'

/*
 * PostgreSQL's reading of a date in contact data, made to agree with SQLite's
 * `unixepoch(text, 'subsec')`, which the SQLite dialect uses. A cast to timestamptz would not do:
 * it fails the whole query on `2026-02-30`, which SQLite reads as 2 March, and it would read a
 * zoneless time in the session's zone. So the parts are matched by a pattern and the day counted
 * with SQLite's own arithmetic (computeJD in its date.c), which never fails. SQLite also takes
 * a number, in a string, for a Julian day and a time alone for a day in 2000; these are no ISO
 * 8601 dates, and here they are none.
 */

/**
 * What SQLite accepts as a date and time: `[-]YYYY-MM-DD`, then any spaces and `T`s, then
 * optionally `HH:MM[:SS[.fraction]]` and a zone (`Z` or `±HH:MM`, spaces allowed around it).
 * The ranges (month 1-12, day 1-31, hour 0-24, zone hour 0-14) are checked after the match.
 */
const DATE_PATTERN =
  '^(-?)([0-9]{4})-([0-9]{2})-([0-9]{2})[[:space:]T]*' +
  '(?:([0-9]{2}):([0-9]{2})(?::([0-9]{2})(\\.[0-9]+)?)?[[:space:]]*(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))?[[:space:]]*)?$'

/** The matched parts by name: m[1] sign of the year ... m[11] zone minutes. */
const part = (i: number) => sql.raw(`date_match.m[${i}]`)
const int = (i: number) => sql`CAST(${part(i)} AS bigint)`
const orZero = (i: number) => sql`coalesce(${int(i)}, 0)`

/**
 * Epoch seconds (numeric, to the millisecond) of `text` when it is a date as SQLite reads one,
 * else NULL. Fractions of a second are rounded to the millisecond but never up to the next second,
 * as SQLite does.
 */
export function jsonDateSeconds(text: RawBuilder<unknown>): RawBuilder<number> {
  const fields = sql`
    ${int(2)} * CASE ${part(1)} WHEN '-' THEN -1 ELSE 1 END AS year, ${int(3)} AS month, ${int(4)} AS day,
    ${int(3)} BETWEEN 1 AND 12 AND ${int(4)} BETWEEN 1 AND 31 AND ${orZero(5)} <= 24 AND ${orZero(6)} <= 59
      AND ${orZero(7)} <= 59 AND ${orZero(10)} <= 14 AND ${orZero(11)} <= 59 AS valid,
    ${orZero(5)} * 3600000 + ${orZero(6)} * 60000 + ${orZero(7)} * 1000
      + least(round(CAST('0' || coalesce(${part(8)}, '') AS numeric) * 1000), 999)
      - CASE ${part(9)} WHEN '-' THEN -1 WHEN '+' THEN 1 ELSE 0 END * (${orZero(10)} * 60 + ${orZero(11)}) * 60000 AS clock`
  // January and February count as months 13 and 14 of the year before.
  const shifted = sql`date_fields.year - CASE WHEN date_fields.month <= 2 THEN 1 ELSE 0 END AS y, date_fields.month + CASE WHEN date_fields.month <= 2 THEN 12 ELSE 0 END AS m`
  // SQLite's Julian day (its noon-based day less half a day), then milliseconds since 1970.
  const century = sql`(date_shift.y + 4800) / 100`
  const days = sql`36525 * (date_shift.y + 4716) / 100 + 306001 * (date_shift.m + 1) / 10000 + date_fields.day + 38 - ${century} + ${century} / 4 - 1524`
  const julianMs = sql`(${days}) * 86400000 - 43200000 + date_fields.clock`
  // SQLite's Julian days start in 4714 BC and end with the year 9999.
  return sql<number>`(SELECT CASE WHEN date_fields.valid AND ${julianMs} BETWEEN 0 AND 464269060799999 THEN (${julianMs} - 210866760000000) / 1000.0 END
    FROM regexp_match(${text}, ${DATE_PATTERN}) AS date_match(m)
    CROSS JOIN LATERAL (SELECT ${fields}) AS date_fields
    CROSS JOIN LATERAL (SELECT ${shifted}) AS date_shift)`
}
