// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { onPostgres, openTestDatabase } from '../../test/helpers/postgres.ts'
import type { Database } from './client.ts'
import { jsonFromPatch } from './json.ts'
import { domainPart, isUnstorableText } from './text.ts'

let database: Database

beforeAll(async () => {
  database = await openTestDatabase()
  await database.db.insertInto('projects').values({ name: 'p', disabled: 0, rate_limit_per_minute: null, default_sender: null, send_rate_per_second: null, created_at: 1, updated_at: 1 }).execute()
})

afterAll(() => database.close())

const contact = (id: string, email: string, data = '{}') => ({ id, project_id: 1, email, email_key: email, subscribed: 1, data: jsonFromPatch(data), created_at: 1, updated_at: 1 })

describe('domainPart', () => {
  test('is what follows the first @ of the address', async () => {
    await database.db.insertInto('contacts').values([contact('a', 'jane@example.com'), contact('b', '"a@b"@sub.example.org')]).execute()
    const rows = await database.db.selectFrom('contacts').select(['id', domainPart(database.db, 'email_key').as('domain')]).orderBy('id').execute()
    expect(rows).toEqual([
      { id: 'a', domain: 'example.com' },
      { id: 'b', domain: 'b"@sub.example.org' },
    ])
  })
})

describe('text with a NUL character', () => {
  test('SQLite keeps it; PostgreSQL refuses it, in text and in JSON, with an error isUnstorableText knows', async () => {
    const inText = database.db.insertInto('contacts').values(contact('nul-text', 'nul\u0000@example.com')).execute()
    const inJson = database.db.insertInto('contacts').values(contact('nul-json', 'nul@example.com', '{"a":"x\\u0000y"}')).execute()
    for (const attempt of [inText, inJson]) {
      const error = await attempt.then(() => undefined, (e: unknown) => e)
      if (onPostgres) expect(isUnstorableText(error)).toBe(true)
      else expect(error).toBeUndefined()
    }
  })

  test('other errors are not taken for it', async () => {
    const error = await database.db.insertInto('contacts').values(contact('a', 'again@example.com')).execute().then(() => undefined, (e: unknown) => e)
    expect(error).toBeDefined()
    expect(isUnstorableText(error)).toBe(false)
    expect(isUnstorableText(new Error('0x00'))).toBe(false)
    expect(isUnstorableText(undefined)).toBe(false)
  })
})
