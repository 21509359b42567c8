// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql, type RawBuilder } from 'kysely'
import { insertContacts, openProjectDb } from '../../test/helpers/segments.ts'
import { equalsIgnoringCase, likeIgnoringCase } from './caseless.ts'
import { dialectOf, type Database, type Dialect } from './client.ts'
import { jsonDateIs, type Predicate } from './json-query.ts'
import type { Db } from './schema.ts'

/*
 * What both dialects must agree on beyond the segment compiler's tests: dates read as SQLite's
 * unixepoch(text, 'subsec') reads them (PostgreSQL counts the days itself), and case folded for
 * ASCII letters only.
 */

let database: Database
let db: Db
let dialect: Dialect
let projectId: number

beforeAll(async () => {
  ;({ database, db, projectId } = await openProjectDb())
  dialect = dialectOf(db)
})

afterAll(() => database.close())

/** Whether `predicate` holds for a contact whose data is `data`. */
async function holds(data: Record<string, unknown>, predicate: (dialect: Dialect) => Predicate): Promise<boolean> {
  const [id] = await insertContacts(db, projectId, [{ email: `${crypto.randomUUID()}@x.test`, data }])
  const row = await db.selectFrom('contacts as c').select('c.id').where('c.id', '=', id!).where(predicate(dialect)).executeTakeFirst()
  return row !== undefined
}

const dateIs = (text: string, test: RawBuilder<unknown>) => holds({ d: text }, (d) => jsonDateIs(d, { column: 'c.data', keys: ['d'] }, test))

describe('a date in data', () => {
  test.each([
    ['a day is its midnight, UTC', '2026-01-01', 1767225600],
    ['an instant in UTC', '2026-01-01T12:00:00Z', 1767268800],
    ['a space for the T, minutes only', '2026-01-01 12:00', 1767268800],
    ['a zone offset', '2026-01-01T12:00:00.1234+01:30', 1767263400.123],
    ['a zone behind spaces, lower-case z', '2026-01-01T12:00:00 z', 1767268800],
    ['a negative offset', '2026-01-01T12:00:00-00:30', 1767270600],
    ['the largest offset', '2026-01-01T12:00:00 +14:00', 1767218400],
    ['hour 24 is the next midnight', '2026-01-01T24:00:00', 1767312000],
    ['a day past the month’s end runs on into the next', '2026-02-31', 1772496000],
    ['a leap day', '2024-02-29', 1709164800],
    ['fractions round to the millisecond', '2026-01-01T12:00:00.1235', 1767268800.124],
    ['... but never to the next second', '2026-01-01T12:00:00.9999', 1767268800.999],
    ['trailing spaces', '2026-01-01 ', 1767225600],
    ['year zero', '0000-03-01', -62162035200],
    ['a year before it', '-0001-01-01', -62198755200],
    ['the last millisecond', '9999-12-31T23:59:59.999Z', 253402300799.999],
  ])('%s', async (_, text, seconds) => {
    expect(await dateIs(text, sql`= ${seconds}`)).toBe(true)
  })

  test.each([
    ['month 13', '2026-13-01'],
    ['day 0', '2026-01-00'],
    ['a one-digit month', '2026-1-01'],
    ['a leading space', ' 2026-01-01'],
    ['second 60', '2026-01-01T12:00:60'],
    ['an hour without minutes', '2026-01-01T12'],
    ['a zone past 14 hours', '2026-01-01T12:00:00+15:00'],
    ['a zone without its colon', '2026-01-01T12:00:00+0100'],
    ['a zone on a day alone', '2026-01-01z'],
    ['a dot without a fraction', '2026-01-01T12:00:00.'],
    ['text after the zone', '2026-01-01T12:00 +01:00x'],
    ['before the Julian days begin', '-4713-11-24T11:59:59'],
    ['a number in a string', '12345'],
    ['a time alone', '12:30'],
  ])('%s is no date', async (_, text) => {
    expect(await dateIs(text, sql`> -1e15`)).toBe(false)
  })

  test('a number is no date', async () => {
    expect(await holds({ d: 2460000 }, (d) => jsonDateIs(d, { column: 'c.data', keys: ['d'] }, sql`> -1e15`))).toBe(false)
  })
})

describe('case', () => {
  const city = (expression: (d: Dialect) => Predicate) => holds({ city: 'Évian' }, expression)
  const text = (d: Dialect) => (d === 'sqlite' ? sql`(c.data ->> '$.city')` : sql`(c.data ->> 'city')`)

  test('ASCII letters fold', async () => {
    expect(await holds({ city: 'London' }, (d) => equalsIgnoringCase(d, text(d), 'LONDON'))).toBe(true)
    expect(await holds({ city: 'London' }, (d) => likeIgnoringCase(d, text(d), 'lon%'))).toBe(true)
  })

  test('other letters do not', async () => {
    expect(await city((d) => equalsIgnoringCase(d, text(d), 'évian'))).toBe(false)
    expect(await city((d) => equalsIgnoringCase(d, text(d), 'Évian'))).toBe(true)
    expect(await city((d) => likeIgnoringCase(d, text(d), 'év%'))).toBe(false)
    expect(await city((d) => equalsIgnoringCase(d, text(d), 'ÉVIAN'))).toBe(true)
  })
})
