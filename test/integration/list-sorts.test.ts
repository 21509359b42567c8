// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql, type CompiledQuery, type RootOperationNode } from 'kysely'
import { CAMPAIGN_SORTS, listCampaigns } from '../../src/core/campaigns/campaigns.service.ts'
import { CONTACT_SORTS, encodeCursor } from '../../src/core/contacts/contact.ts'
import { newId } from '../../src/lib/ids.ts'
import { listContacts } from '../../src/core/contacts/contacts.service.ts'
import { listTemplates, TEMPLATE_SORTS } from '../../src/core/templates/templates.service.ts'
import { dialectOf } from '../../src/db/client.ts'
import type { Db } from '../../src/db/schema.ts'
import { onPostgres } from '../helpers/postgres.ts'
import { ManualClock } from '../helpers/clock.ts'
import { createWorld, type World } from '../helpers/world.ts'

/*
 * Plunk's sort and dir on the contact, template and campaign lists: every allowed order pages
 * through a whole list, a few rows at a time, giving each row once and in order, with ties broken
 * by id in the same direction; any other sort is a 422 naming sort and its values.
 */

let w: World
const clock = new ManualClock()
const MINUTE = 60_000

beforeAll(async () => {
  w = await createWorld({ clock })
})

afterAll(() => w.close())

const api = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })

interface Row {
  id: string
  name?: string
  email?: string
  createdAt: string
  updatedAt: string
}

/** Names with ties, in letters that every collation orders alike. */
const NAMES = ['delta', 'alpha', 'charlie', 'alpha', 'echo', 'bravo', 'alpha', 'delta']

/** Makes NAMES.length rows, two in each millisecond (created_at ties), the clock moving a minute between pairs. */
async function makeRows(make: (i: number) => Promise<Row>): Promise<Row[]> {
  const made: Row[] = []
  for (let i = 0; i < NAMES.length; i++) {
    made.push(await make(i))
    if (i % 2 === 1) clock.advance(MINUTE)
  }
  return made
}

/** The rows share values of each sort key, so that the id's tie-break is tested too. */
function expectTies(rows: Row[], sorts: string[]) {
  for (const sort of sorts) expect(new Set(rows.map(keys[sort]!)).size).toBeLessThan(rows.length)
}

const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0)

/** The rows in the order a sort promises: the key, then the id, both in `dir`. */
function expectedOrder(rows: Row[], key: (row: Row) => string | number, dir: 'asc' | 'desc') {
  const sign = dir === 'asc' ? 1 : -1
  return rows.toSorted((a, b) => sign * (compare(key(a), key(b)) || compare(a.id, b.id))).map((row) => row.id)
}

const keys: Record<string, (row: Row) => string | number> = {
  createdAt: (row) => Date.parse(row.createdAt),
  updatedAt: (row) => Date.parse(row.updatedAt),
  name: (row) => row.name!,
  email: (row) => row.email!.toLowerCase(),
}

const ORDERS = (sorts: string[]) => sorts.flatMap((sort) => (['asc', 'desc'] as const).map((dir) => [sort, dir] as const))

describe('templates', () => {
  let rows: Row[]
  let key: string
  const list = (query: string) => w.t.request('GET', `/templates?${query}`, { key })
  beforeAll(async () => {
    key = (await w.t.project('Sorted templates')).secretKey
    const made = await makeRows(async (i) => (await w.t.request('POST', '/templates', { key, body: { name: NAMES[i], subject: `S${i}`, body: '<p>x</p>' } })).body)
    // Two changed in the same millisecond, later than any was made: updatedAt ties and a new order.
    for (const row of [made[0]!, made[5]!]) await w.t.request('PATCH', `/templates/${row.id}`, { key, body: { subject: 'changed' } })
    rows = (await list('pageSize=100')).body.templates
    expect(rows).toHaveLength(NAMES.length)
    expectTies(rows, ['createdAt', 'updatedAt', 'name'])
  })

  test.each(ORDERS(['createdAt', 'updatedAt', 'name']))('sort=%s&dir=%s pages through every template once, in order', async (sort, dir) => {
    const ids: string[] = []
    for (let page = 1; page <= 4; page++) {
      const response = await list(`pageSize=3&page=${page}&sort=${sort}&dir=${dir}`)
      expect(response.body.total).toBe(NAMES.length)
      ids.push(...response.body.templates.map((row: Row) => row.id))
    }
    expect(ids).toEqual(expectedOrder(rows, keys[sort]!, dir))
  })

  test('no sort is createdAt, no dir is desc: newest first', async () => {
    expect((await list('pageSize=100')).body.templates.map((row: Row) => row.id)).toEqual(expectedOrder(rows, keys.createdAt!, 'desc'))
    expect((await list('pageSize=100&sort=name')).body.templates.map((row: Row) => row.id)).toEqual(expectedOrder(rows, keys.name!, 'desc'))
    expect((await list('pageSize=100&dir=asc')).body.templates.map((row: Row) => row.id)).toEqual(expectedOrder(rows, keys.createdAt!, 'asc'))
  })
})

describe('campaigns', () => {
  let rows: Row[]
  // In the world's project: a campaign's sender must be a verified domain of its project.
  const list = (query: string) => api('GET', `/campaigns?${query}`)
  beforeAll(async () => {
    const made = await makeRows(async (i) => {
      const body = { name: NAMES[i], subject: `S${i}`, body: '<p>x</p>', from: 'news@sender.example.com', audienceType: 'ALL' }
      return (await api('POST', '/campaigns', body)).body.data
    })
    for (const row of [made[2]!, made[7]!]) await api('PATCH', `/campaigns/${row.id}`, { subject: 'changed' })
    rows = (await list('pageSize=100')).body.data
    expect(rows).toHaveLength(NAMES.length)
    expectTies(rows, ['createdAt', 'updatedAt', 'name'])
  })

  test.each(ORDERS(['createdAt', 'updatedAt', 'name']))('sort=%s&dir=%s pages through every campaign once, in order', async (sort, dir) => {
    const ids: string[] = []
    for (let page = 1; page <= 4; page++) {
      const response = await list(`pageSize=3&page=${page}&sort=${sort}&dir=${dir}`)
      expect(response.body).toMatchObject({ total: NAMES.length, totalPages: 3 })
      ids.push(...response.body.data.map((row: Row) => row.id))
    }
    expect(ids).toEqual(expectedOrder(rows, keys[sort]!, dir))
  })

  test('sort goes with the status and search filters', async () => {
    const response = await list('search=alpha&status=DRAFT&sort=updatedAt&dir=asc')
    const alphas = rows.filter((row) => row.name === 'alpha')
    expect(response.body.data.map((row: Row) => row.id)).toEqual(expectedOrder(alphas, keys.updatedAt!, 'asc'))
  })
})

describe('contacts', () => {
  let rows: Row[]
  let key: string
  const EMAILS = ['dora@example.net', 'Al@example.net', 'carl@example.net', 'bea@Example.net', 'eve@example.net', 'Bob@example.net', 'abe@example.net', 'dan@example.net']
  beforeAll(async () => {
    key = (await w.t.project('Sorted contacts')).secretKey
    for (let i = 0; i < EMAILS.length; i++) {
      await w.t.request('POST', '/contacts', { key, body: { email: EMAILS[i] } })
      if (i % 2 === 1) clock.advance(MINUTE)
    }
    rows = (await w.t.request('GET', '/contacts?limit=100', { key })).body.contacts
    expect(rows).toHaveLength(EMAILS.length)
    expectTies(rows, ['createdAt'])
  })
  const walk = async (query: string, between?: (page: number) => Promise<void>) => {
    const ids: string[] = []
    let cursor: string | null = null
    for (let page = 1; page < 20; page++) {
      const response: any = await w.t.request('GET', `/contacts?limit=3&${query}${cursor ? `&cursor=${cursor}` : ''}`, { key })
      expect(response.status).toBe(200)
      expect(response.body.total).toBe(cursor ? undefined : EMAILS.length)
      ids.push(...response.body.contacts.map((row: Row) => row.id))
      cursor = response.body.cursor
      expect(response.body.hasMore).toBe(cursor !== null)
      if (!cursor) return ids
      await between?.(page)
    }
    throw new Error('too many pages')
  }

  test.each(ORDERS(['createdAt', 'email']))('sort=%s&dir=%s pages by cursor through every contact once, in order', async (sort, dir) => {
    expect(await walk(`sort=${sort}&dir=${dir}`)).toEqual(expectedOrder(rows, keys[sort]!, dir))
  })

  test('no sort and no dir: newest first, as before', async () => {
    expect(await walk('')).toEqual(expectedOrder(rows, keys.createdAt!, 'desc'))
  })

  test('contacts added while paging by email do not shift the pages: each one there throughout is seen once', async () => {
    const added: string[] = []
    const seen = await walk('sort=email&dir=asc', async (page) => {
      // One that sorts before the pages read so far, and one after: neither moves the cursor's place.
      for (const email of [`aaa${page}@example.net`, `zzz${page}@example.net`]) added.push((await w.t.request('POST', '/contacts', { key, body: { email } })).body.id)
    })
    for (const id of added) await w.t.request('DELETE', `/contacts/${id}`, { key })
    const original = expectedOrder(rows, keys.email!, 'asc')
    expect(seen.filter((id) => !added.includes(id))).toEqual(original)
    expect(new Set(seen).size).toBe(seen.length)
  })

  test('a cursor pages on only in the sort and dir it was made in', async () => {
    const first = await w.t.request('GET', '/contacts?limit=3&sort=email&dir=asc', { key })
    const other = await w.t.request('GET', `/contacts?limit=3&sort=email&dir=desc&cursor=${first.body.cursor}`, { key })
    expect(other.status).toBe(422)
    expect(other.body.errors).toMatchObject([{ field: 'cursor', message: expect.stringContaining('sort=email&dir=asc') }])
    expect((await w.t.request('GET', `/contacts?limit=3&cursor=${first.body.cursor}`, { key })).status).toBe(422)
  })

  test('sort goes with the search and subscribed filters', async () => {
    const response = await w.t.request('GET', '/contacts?search=B&subscribed=true&sort=email&dir=asc', { key })
    expect(response.body.contacts.map((row: Row) => row.email)).toEqual(['abe@example.net', 'bea@Example.net', 'Bob@example.net'])
  })
})

describe('a sort that is not offered is a 422 naming sort and the values it takes', () => {
  test.each([
    ['/contacts', 'subject', 'createdAt, email'],
    ['/contacts', 'data', 'createdAt, email'],
    ['/contacts', 'updatedAt', 'createdAt, email'],
    ['/contacts', 'EMAIL', 'createdAt, email'],
    ['/templates', 'subject', 'createdAt, updatedAt, name'],
    ['/templates', 'body', 'createdAt, updatedAt, name'],
    ['/campaigns', 'subject', 'createdAt, updatedAt, name'],
    ['/campaigns', 'data', 'createdAt, updatedAt, name'],
  ])('%s?sort=%s', async (path, sort, values) => {
    const response = await api('GET', `${path}?sort=${sort}`)
    expect(response.status).toBe(422)
    expect(response.body.errors).toMatchObject([{ field: 'sort', message: `Choose one of these for sort: ${values}.` }])
  })

  test.each(['/contacts', '/templates', '/campaigns'])('%s?dir=up is a 422 naming dir', async (path) => {
    const response = await api('GET', `${path}?dir=up`)
    expect(response.status).toBe(422)
    expect(response.body.errors).toMatchObject([{ field: 'dir', message: 'Choose one of these for dir: asc, desc.' }])
  })
})

/** The statements `run` sends, compiled as the database gets them. */
async function statementsOf(run: (db: Db) => Promise<unknown>): Promise<CompiledQuery[]> {
  const db = w.t.app.db
  const seen: CompiledQuery[] = []
  const spy = db.withPlugin({
    transformQuery: ({ node, queryId }) => {
      seen.push(db.getExecutor().compileQuery(node as RootOperationNode, queryId))
      return node
    },
    transformResult: async ({ result }) => result,
  })
  await run(spy)
  return seen
}

/** Whether the database reads the page's rows in order from an index, without sorting them. */
async function readsInOrder(query: CompiledQuery): Promise<string> {
  const db = w.t.app.db
  if (dialectOf(db) === 'sqlite') {
    const plan = await sql.raw<{ detail: string }>(`EXPLAIN QUERY PLAN ${query.sql}`).execute(db)
    // Parameters are left unbound here: the plan depends on the statement, not on the values.
    return plan.rows.map((row) => row.detail).join('; ')
  }
  // With sorting and sequential scans made as dear as PostgreSQL makes them, a plan that still
  // has no Sort node reads an index in order; these tables are too small for costs to choose it.
  return db.connection().execute(async (conn) => {
    await sql`SET enable_sort = off`.execute(conn)
    await sql`SET enable_seqscan = off`.execute(conn)
    try {
      const plan = await conn.executeQuery<{ 'QUERY PLAN': string }>({ ...query, sql: `EXPLAIN ${query.sql}` })
      return plan.rows.map((row) => row['QUERY PLAN']).join('; ')
    } finally {
      await sql`RESET enable_sort`.execute(conn)
      await sql`RESET enable_seqscan`.execute(conn)
    }
  })
}

describe('every offered order reads an index in order, a project at a time', () => {
  const projectId = () => w.projectId
  const cases = [
    ...ORDERS(Object.keys(TEMPLATE_SORTS)).map(([sort, dir]) => ['templates', sort, dir, (db: Db) => listTemplates(db, projectId(), { page: 2, pageSize: 3, sort: sort as 'name', dir })] as const),
    ...ORDERS(Object.keys(CAMPAIGN_SORTS)).map(([sort, dir]) => ['campaigns', sort, dir, (db: Db) => listCampaigns(db, projectId(), { page: 2, pageSize: 3, sort: sort as 'name', dir })] as const),
    ...ORDERS(Object.keys(CONTACT_SORTS)).map(([sort, dir]) => ['contacts', sort, dir, (db: Db) => listContacts(db, projectId(), { limit: 3, sort: sort as 'email', dir })] as const),
    // A later page starts from its cursor's place with a range of the same index.
    ...ORDERS(Object.keys(CONTACT_SORTS)).map(([sort, dir]) => {
      const cursor = encodeCursor({ sort: sort as 'email', dir, value: sort === 'email' ? 'm@example.net' : 1_790_000_000_000, id: newId() })
      return ['contacts', sort, dir, (db: Db) => listContacts(db, projectId(), { limit: 3, sort: sort as 'email', dir, cursor })] as const
    }),
  ]
  test.each(cases)('%s sort=%s&dir=%s', async (table, sort, _dir, run) => {
    const [page] = (await statementsOf(run)).filter((q) => /order by/i.test(q.sql))
    expect(page).toBeDefined()
    const plan = await readsInOrder(page!)
    if (onPostgres) expect(plan).not.toContain('Sort')
    else expect(plan).not.toContain('TEMP B-TREE')
    // The index on (project_id, column, id); for email, the unique (project_id, email_key) one, which SQLite names itself.
    const column = { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name' }[sort as 'name']
    expect(plan).toMatch(sort === 'email' ? /contacts_project_email|sqlite_autoindex_contacts/ : new RegExp(`${table}_project_${column}\\b`))
  })
})
