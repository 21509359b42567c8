// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { sql } from 'kysely'
import { emailPage, type EmailFilter } from '../../src/core/emails/emails.repository.ts'
import { dialectOf } from '../../src/db/client.ts'
import { ManualClock } from '../helpers/clock.ts'
import { publishRecords } from '../helpers/domains.ts'
import { NEEDS_PEER_DOCUMENTS, NO_PEER_DOCUMENTS, schemaErrors, useSendResponse } from '../helpers/peer-schema.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'

checkAnswersAgainstDocument()

/*
 * GET /api/v1/emails with useSend's filters: a creation range (startDate, endDate) and sending
 * domains (domainId, repeated for several), paged on the server, every item with useSend's
 * latestStatus and domainId.
 */

const DAY = 86_400_000
let w: World
let clock: ManualClock
let news: number
/** Subjects by the day they were sent: Nov 1, 2 and 3, 2026, at noon. */
const SENT = [
  ['sender', 'a1'],
  ['sender', 'a2'],
  ['sender', 'a3'],
  ['news', 'n1'],
  ['news', 'n2'],
  ['sender', 'a4'],
] as const
const DAYS = [0, 0, 0, 1, 1, 2]

const list = async (query = '', key = w.key) => w.t.request('GET', `/api/v1/emails${query}`, { key })
const subjects = (answer: { body: { data: Array<{ subject: string }> } }) => answer.body.data.map((e) => e.subject)

beforeAll(async () => {
  clock = new ManualClock(Date.parse('2026-11-01T12:00:00Z'))
  w = await createWorld({ clock })
  const created = await w.t.request('POST', '/api/v1/domains', { key: w.key, body: { name: 'news.example.com', region: 'us-east-1' } })
  publishRecords(w.dns, created.body.dnsRecords)
  await w.t.app.checker.check(created.body.id)
  news = created.body.id
  let day = 0
  for (const [i, [domain, subject]] of SENT.entries()) {
    clock.advance((DAYS[i]! - day) * DAY)
    day = DAYS[i]!
    const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: `ada@${domain}.example.com`, to: `${subject}@example.net`, subject, html: '<p>Hi</p>' } })
    expect(sent.status).toBe(200)
  }
  await w.deliver()
})

afterAll(() => w.close())

describe('the list', () => {
  test("newest first, each with useSend's latestStatus and domainId", async () => {
    const answer = await list()
    expect(answer.status).toBe(200)
    expect(subjects(answer)).toEqual(['a4', 'n2', 'n1', 'a3', 'a2', 'a1'])
    expect(answer.body.count).toBe(6)
    expect(answer.body.data[0]).toMatchObject({ latestStatus: 'DELIVERED', status: 'DELIVERED', domainId: w.domain.id })
    expect(answer.body.data[1].domainId).toBe(news)
  })

  test.skipIf(NO_PEER_DOCUMENTS)(`the list, filtered or not, is as useSend's document says ${NEEDS_PEER_DOCUMENTS}`, async () => {
    for (const query of ['', `?domainId=${news}&domainId=${w.domain.id}&endDate=2026-11-02T23:00:00Z`]) {
      expect(schemaErrors(useSendResponse('/v1/emails'), (await list(query)).body)).toEqual([])
    }
  })

  test('startDate and endDate keep the emails created between them, both included; count is of those', async () => {
    const answer = await list('?startDate=2026-11-02T12:00:00Z&endDate=2026-11-03T12:00:00.000Z')
    expect(subjects(answer)).toEqual(['a4', 'n2', 'n1'])
    expect(answer.body.count).toBe(3)
    expect(subjects(await list('?startDate=2026-11-02T12:00:00.001Z'))).toEqual(['a4'])
    expect(subjects(await list('?endDate=2026-11-01T23:59:59Z'))).toEqual(['a3', 'a2', 'a1'])
  })

  test('domainId keeps one sending domain; repeated, any of them', async () => {
    expect(subjects(await list(`?domainId=${news}`))).toEqual(['n2', 'n1'])
    const both = await list(`?domainId=${news}&domainId=${w.domain.id}&endDate=2026-11-02T23:00:00Z`)
    expect(subjects(both)).toEqual(['n2', 'n1', 'a3', 'a2', 'a1'])
  })

  test('status, recipient, sender and subject keep the emails that match, in any case, with the others', async () => {
    expect(subjects(await list('?status=DELIVERED'))).toEqual(['a4', 'n2', 'n1', 'a3', 'a2', 'a1'])
    expect((await list('?status=BOUNCED')).body).toMatchObject({ data: [], count: 0 })
    expect(subjects(await list('?recipient=A4@Example.NET'))).toEqual(['a4'])
    expect(subjects(await list('?sender=NEWS.example'))).toEqual(['n2', 'n1'])
    const matched = await list(`?subject=A&domainId=${w.domain.id}&startDate=2026-11-01T12:00:00Z&endDate=2026-11-01T12:00:00Z`)
    expect(subjects(matched)).toEqual(['a3', 'a2', 'a1'])
    expect(matched.body.count).toBe(3)
    // LIKE's wildcards are plain characters in a search.
    expect((await list('?subject=%25')).body.count).toBe(0)
  })

  test('a status that is none, or an empty or too long search, is refused naming the field', async () => {
    for (const [query, field] of [
      ['?status=LOST', 'status'],
      ['?recipient=', 'recipient'],
      [`?subject=${'x'.repeat(255)}`, 'subject'],
    ]) {
      const answer = await list(query)
      expect(answer.status).toBe(422)
      expect(answer.body.errors.map((e: { field: string }) => e.field)).toContain(field)
    }
  })

  test('filtered pages: page and limit page through what the filters keep', async () => {
    const query = `?domainId=${w.domain.id}&limit=2`
    expect(subjects(await list(`${query}&page=1`))).toEqual(['a4', 'a3'])
    const second = await list(`${query}&page=2`)
    expect(subjects(second)).toEqual(['a2', 'a1'])
    expect(second.body.count).toBe(4)
    expect(subjects(await list(`${query}&page=3`))).toEqual([])
  })

  test('a domain removed since: its emails stay, with domainId null', async () => {
    const gone = await w.t.request('POST', '/api/v1/domains', { key: w.key, body: { name: 'gone.example.com', region: 'us-east-1' } })
    publishRecords(w.dns, gone.body.dnsRecords)
    await w.t.app.checker.check(gone.body.id)
    const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@gone.example.com', to: 'g@example.net', subject: 'g', html: '<p>Hi</p>' } })
    await w.deliver()
    expect((await w.t.request('DELETE', `/api/v1/domains/${gone.body.id}`, { key: w.key })).status).toBe(200)
    const [latest] = (await list('?limit=1')).body.data
    expect(latest).toMatchObject({ id: sent.body.emailId, domainId: null })
    expect((await list(`?domainId=${gone.body.id}`)).status).toBe(404)
  })
})

describe('bad filters', () => {
  test.each([
    ['a startDate that is not a date-time', '?startDate=last%20week', 'startDate'],
    ['an endDate that is not a date-time', '?endDate=2026-11-01', 'endDate'],
    ['an endDate before the startDate', '?startDate=2026-11-02T00:00:00Z&endDate=2026-11-01T00:00:00Z', 'endDate'],
    ['a domainId that is not a number', '?domainId=abc', 'domainId'],
    ['a domainId of 0', '?domainId=0', 'domainId'],
    ['one bad domainId among good ones', '?domainId=1&domainId=x', 'domainId'],
    ['more than 50 domains', `?${Array.from({ length: 51 }, (_, i) => `domainId=${i + 1}`).join('&')}`, 'domainId'],
  ])('%s: 422 naming the field', async (_, query, field) => {
    const answer = await list(query)
    expect(answer.status).toBe(422)
    expect(answer.body.errors.map((e: { field: string }) => e.field)).toEqual([field])
  })

  test("another project's domain, or one that does not exist, is a 404", async () => {
    const other = await w.t.project('Other')
    expect((await list(`?domainId=${w.domain.id}`, other.secretKey)).status).toBe(404)
    expect((await list(`?domainId=${news}&domainId=999999`)).status).toBe(404)
    expect((await list('', other.secretKey)).body).toEqual({ data: [], count: 0 })
  })
})

describe('the filtered list reads an index in its order', () => {
  /** The database's plan of a page, with the filter given: its text, one step a line. */
  async function planOf(filter: Omit<EmailFilter, 'projectId'>): Promise<string> {
    const db = w.t.app.db
    const query = emailPage(db, { projectId: w.projectId, ...filter }, 3, 20).compile()
    if (dialectOf(db) === 'sqlite') {
      return (await db.executeQuery<{ detail: string }>({ ...query, sql: `EXPLAIN QUERY PLAN ${query.sql}` })).rows.map((r) => r.detail).join('\n')
    }
    // A handful of rows: PostgreSQL reads them all whatever the indexes, unless told not to.
    return db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx)
      const rows = await trx.executeQuery<{ 'QUERY PLAN': string }>({ ...query, sql: `EXPLAIN ${query.sql}` })
      return rows.rows.map((r) => r['QUERY PLAN']).join('\n')
    })
  }

  test.each([
    ['no filter', {}, 'emails_project_created'],
    ['a range', { from: Date.parse('2026-11-01T00:00:00Z'), to: Date.parse('2026-11-02T00:00:00Z') }, 'emails_project_created'],
    ['one domain and a range', { domainIds: [1], from: Date.parse('2026-11-01T00:00:00Z') }, 'emails_domain_created'],
    // The project's emails in order, those of other domains passed over: a domain's own index would need a sort.
    ['several domains', { domainIds: [1, 2] }, 'emails_project_created'],
  ] as Array<[string, Omit<EmailFilter, 'projectId'>, string]>)('%s: no sort', async (_, filter, index) => {
    const plan = await planOf(filter)
    expect(plan).toContain(index)
    expect(plan).not.toMatch(/TEMP B-TREE|Sort/)
  })
})
