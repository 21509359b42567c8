// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { UseSend } from 'usesend-js'
import { ManualClock } from '../helpers/clock.ts'
import { publishRecords } from '../helpers/domains.ts'
import { NEEDS_PEER_DOCUMENTS, NO_PEER_DOCUMENTS, schemaErrors, useSendResponse } from '../helpers/peer-schema.ts'
import { arf, deliverReport, dsn, sendToAll } from '../helpers/reports.ts'
import { receivedBy, textOf } from '../helpers/sending.ts'
import { createWorld, HOSTNAME, type World } from '../helpers/world.ts'

/*
 * Analytics end to end: mail delivered to a fake MX (which bounces gone*@ and defers busy*@),
 * opened and clicked through the tracking URLs it carries, complained about and bounced by
 * reports sent to the MX listener, read back by hour and by day, and through usesend-js.
 */

const BASE = 'https://mail.example.org'
const HOUR = 3_600_000
const FBL = `fbl@${HOSTNAME}`
/** The world's clock starts here: the first mail goes out at noon, the second the next day at 13:00. */
const NOON = Date.parse('2026-11-01T12:00:00Z')

let w: World
let clock: ManualClock
let news: { id: number }
/** Recipients deferred once: busy*@ is accepted at its second attempt. */
const deferred = new Set<string>()

const api = (path: string, key = w.key) => w.t.request('GET', path, { key })

const NONE = { sent: 0, delivered: 0, deferred: 0, opened: 0, clicked: 0, bounced: 0, complained: 0 }

/** The tracking URLs' paths in a received message. */
const trackingPaths = (html: string, kind: 'o' | 'c') => [...html.matchAll(new RegExp(`${BASE.replace(/\./g, '\\.')}(/t/${kind}/[A-Za-z0-9_-]+)`, 'g'))].map((m) => m[1]!)

const visit = (path: string) => w.t.app.handle(new Request(`http://localhost${path}`))

/** A second verified sending domain of the project. */
async function verifiedDomain(name: string) {
  const created = await w.t.request('POST', '/api/v1/domains', { key: w.key, body: { name, region: 'us-east-1' } })
  publishRecords(w.dns, created.body.dnsRecords)
  await w.t.app.checker.check(created.body.id)
  return created.body
}

beforeAll(async () => {
  clock = new ManualClock(NOON)
  w = await createWorld({
    clock,
    started: true,
    settings: { 'mx-port': '0', 'public-url': `${BASE}/` },
    mx: {
      onRcpt: (to) => {
        if (to.startsWith('gone')) return { code: 550, message: '5.1.1 No such user' }
        if (to.startsWith('busy') && !deferred.has(to)) return deferred.add(to) && { code: 451, message: '4.2.1 Try again later' }
      },
    },
  })
  // These sends are transactional: their own switches (marketing mail has openTracking, clickTracking).
  await w.t.request('PATCH', `/domains/${w.domain.id}`, { key: w.key, body: { transactionalOpenTracking: true, transactionalClickTracking: true } })
  news = await verifiedDomain('news.example.com')
  const port = w.t.app.listeners()!.mx.port!

  // Noon, Nov 1: three delivered, one bounced at its attempt, one deferred; all five reached a server.
  const { messageId, deliveries } = await sendToAll(w, ['ann@example.net', 'bob@example.net', 'cat@example.net'], '<p><img src="https://cdn.example.com/logo.png" alt=""><a href="https://shop.example.com/">Shop</a></p>')
  for (const to of ['gone@example.net', 'busy@example.net']) {
    await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', html: '<p>Hi</p>' } })
  }
  await w.deliver()
  // At 12:10 busy@ is tried again and accepted, Ann opens twice and clicks, Bob complains, and
  // Cat's server bounces it after accepting it.
  const html = textOf(receivedBy(w, 'ann@example.net'), 'text/html')!
  clock.advance(10 * 60_000)
  await w.deliver()
  for (const path of [...trackingPaths(html, 'o'), ...trackingPaths(html, 'o'), trackingPaths(html, 'c')[0]!]) await visit(path)
  const [, bob, cat] = deliveries
  expect((await deliverReport(port, [FBL], arf({ messageId, to: [bob!.recipient], rcptTo: bob!.recipient, returnPath: bob!.verp }))).response).toMatch(/^250/)
  expect((await deliverReport(port, [cat!.verp], dsn({ messageId, to: [cat!.recipient], recipients: [{ final: cat!.recipient }] }))).response).toMatch(/^250/)

  // 13:00 the next day: one delivered from each domain.
  clock.advance(25 * HOUR - 10 * 60_000)
  await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to: 'dan@example.net', subject: 'Hi', html: '<p>Hi</p>' } })
  await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@news.example.com', to: 'eve@example.net', subject: 'News', html: '<p>News</p>' } })
  await w.deliver()
})

afterAll(() => w.close())

describe('the email time series, by day', () => {
  test('counts every kind of event in the day it happened; days without mail are zeros', async () => {
    const answer = await api('/api/v1/analytics/email-time-series?startDate=2026-10-31T08:00:00Z&endDate=2026-11-02T23:59:59Z')
    expect(answer.status).toBe(200)
    // busy@'s retry is not sent again: SENT is its first attempt that reached a server.
    const nov1 = { sent: 5, delivered: 4, deferred: 1, opened: 2, clicked: 1, bounced: 2, complained: 1 }
    const nov2 = { ...NONE, sent: 2, delivered: 2 }
    expect(answer.body).toEqual({
      bucket: 'day',
      startDate: '2026-10-31T00:00:00.000Z',
      endDate: '2026-11-03T00:00:00.000Z',
      result: [
        { date: '2026-10-31', ...NONE },
        { date: '2026-11-01', ...nov1 },
        { date: '2026-11-02', ...nov2 },
      ],
      totalCounts: { sent: 7, delivered: 6, deferred: 1, opened: 2, clicked: 1, bounced: 2, complained: 1 },
    })
  })

  test('days=N is the last N days, today included; without a range, the last 30', async () => {
    const week = await api('/api/v1/analytics/email-time-series?days=7')
    expect(week.body.result.map((r: { date: string }) => r.date)).toEqual(['2026-10-27', '2026-10-28', '2026-10-29', '2026-10-30', '2026-10-31', '2026-11-01', '2026-11-02'])
    expect(week.body.totalCounts.sent).toBe(7)
    const month = await api('/api/v1/analytics/email-time-series')
    expect(month.body.result).toHaveLength(30)
    expect(month.body.startDate).toBe('2026-10-04T00:00:00.000Z')
    expect(month.body.totalCounts).toEqual(week.body.totalCounts)
  })

  test("domainId keeps one sending domain's mail", async () => {
    const answer = await api(`/api/v1/analytics/email-time-series?days=2&domainId=${news.id}`)
    expect(answer.body.result).toEqual([
      { date: '2026-11-01', ...NONE },
      { date: '2026-11-02', ...NONE, sent: 1, delivered: 1 },
    ])
    const main = await api(`/api/v1/analytics/email-time-series?days=2&domainId=${w.domain.id}`)
    expect(main.body.totalCounts).toMatchObject({ sent: 6, delivered: 5 })
  })
})

describe('the email time series, by the hour', () => {
  test('each hour from the one holding startDate to the one holding endDate', async () => {
    const answer = await api('/api/v1/analytics/email-time-series?bucket=hour&startDate=2026-11-01T11:30:00Z&endDate=2026-11-01T13:00:00Z')
    expect(answer.body.bucket).toBe('hour')
    expect(answer.body.result.map((r: { date: string; sent: number; opened: number }) => [r.date, r.sent, r.opened])).toEqual([
      ['2026-11-01T11:00:00.000Z', 0, 0],
      ['2026-11-01T12:00:00.000Z', 5, 2],
      ['2026-11-01T13:00:00.000Z', 0, 0],
    ])
  })

  test('bucket=hour alone is the last 24 hours, this one included', async () => {
    const answer = await api('/api/v1/analytics/email-time-series?bucket=hour')
    expect(answer.body.result).toHaveLength(24)
    expect(answer.body.result.at(-1)).toEqual({ date: '2026-11-02T13:00:00.000Z', ...NONE, sent: 2, delivered: 2 })
    expect(answer.body.totalCounts.sent).toBe(2)
  })
})

describe('reputation metrics', () => {
  test("the last 30 days' delivered, hard bounces and complaints, with the guardrails' rates", async () => {
    const answer = await api('/api/v1/analytics/reputation-metrics')
    expect(answer.status).toBe(200)
    // Sent: 6 delivered and 1 bounced at its attempt; hard bounces: that one and Cat's reported one.
    expect(answer.body).toEqual({
      delivered: 6,
      hardBounced: 2,
      complained: 1,
      bounceRate: 28.571,
      complaintRate: 16.667,
      sent: 7,
      startDate: '2026-10-04T00:00:00.000Z',
      endDate: '2026-11-03T00:00:00.000Z',
    })
    const newsOnly = await api(`/api/v1/analytics/reputation-metrics?domainId=${news.id}&days=1`)
    expect(newsOnly.body).toMatchObject({ delivered: 1, hardBounced: 0, complained: 0, bounceRate: 0, complaintRate: 0, sent: 1 })
  })
})

describe("useSend's form", () => {
  test.skipIf(NO_PEER_DOCUMENTS)(`the answers conform to useSend's document ${NEEDS_PEER_DOCUMENTS}`, async () => {
    for (const [path, schema] of [
      ['/api/v1/analytics/email-time-series?days=7', useSendResponse('/v1/analytics/email-time-series')],
      ['/api/v1/analytics/email-time-series?days=30', useSendResponse('/v1/analytics/email-time-series')],
      [`/api/v1/analytics/email-time-series?days=30&domainId=${news.id}`, useSendResponse('/v1/analytics/email-time-series')],
      ['/api/v1/analytics/reputation-metrics', useSendResponse('/v1/analytics/reputation-metrics')],
      [`/api/v1/analytics/reputation-metrics?domainId=${w.domain.id}`, useSendResponse('/v1/analytics/reputation-metrics')],
    ] as const) {
      const answer = await api(path)
      expect(answer.status).toBe(200)
      expect(schemaErrors(schema, answer.body)).toEqual([])
    }
  })

  test('usesend-js reads both, as its docs say', async () => {
    const usesend = new UseSend(w.key, w.t.app.url)
    const series = await usesend.analytics.emailTimeSeries({ days: '7', domainId: String(w.domain.id) })
    expect(series.error).toBeNull()
    expect(series.data!.result).toHaveLength(7)
    expect(series.data!.totalCounts).toMatchObject({ sent: 6, delivered: 5, opened: 2, clicked: 1, bounced: 2, complained: 1 })
    const reputation = await usesend.analytics.reputationMetrics()
    expect(reputation.error).toBeNull()
    expect(reputation.data).toMatchObject({ delivered: 6, hardBounced: 2, complained: 1 })
  })
})

describe("bad input is a 422 naming the field, or a 404 for a domain not the project's", () => {
  test.each([
    ['a bucket that is neither hour nor day', 'bucket=week', 'bucket'],
    ['a startDate that is not a date-time', 'startDate=yesterday', 'startDate'],
    ['an endDate that is not a date-time', 'endDate=2026-13-45T00:00:00Z', 'endDate'],
    ['a date without its time', 'startDate=2026-11-01', 'startDate'],
    ['an endDate before the startDate', 'startDate=2026-11-02T00:00:00Z&endDate=2026-11-01T00:00:00Z', 'endDate'],
    ['a startDate after now, without an endDate', 'startDate=2026-12-01T00:00:00Z', 'startDate'],
    ['days beside a date', 'days=7&startDate=2026-11-01T00:00:00Z', 'days'],
    ['no days', 'days=0', 'days'],
    ['more than 366 days', 'days=367', 'days'],
    ['days that are not a number', 'days=seven', 'days'],
    ['more than 31 days by the hour', 'bucket=hour&days=32', 'days'],
    ['a range over 31 days by the hour', 'bucket=hour&startDate=2026-09-01T00:00:00Z&endDate=2026-11-01T00:00:00Z', 'endDate'],
    ['a range over 366 days', 'startDate=2024-01-01T00:00:00Z&endDate=2026-11-01T00:00:00Z', 'endDate'],
    ['a domainId that is not a number', 'domainId=abc', 'domainId'],
  ])('%s', async (_, query, field) => {
    const answer = await api(`/api/v1/analytics/email-time-series?${query}`)
    expect(answer.status).toBe(422)
    expect(answer.body.errors.map((e: { field: string }) => e.field)).toEqual([field])
  })

  test('reputation metrics refuse the same days and domainId', async () => {
    expect((await api('/api/v1/analytics/reputation-metrics?days=400')).body.errors[0].field).toBe('days')
    expect((await api('/api/v1/analytics/reputation-metrics?domainId=-1')).body.errors[0].field).toBe('domainId')
  })

  test("another project's domain, or none, is a 404 on both; another project sees none of this mail", async () => {
    const other = await w.t.project('Other')
    for (const path of ['email-time-series', 'reputation-metrics']) {
      expect((await api(`/api/v1/analytics/${path}?domainId=${w.domain.id}`, other.secretKey)).status).toBe(404)
      expect((await api(`/api/v1/analytics/${path}?domainId=999999`)).status).toBe(404)
    }
    expect((await api('/api/v1/analytics/email-time-series', other.secretKey)).body.totalCounts).toEqual(NONE)
  })

  test('a public key is refused', async () => {
    const project = await w.t.project('Public')
    expect((await api('/api/v1/analytics/email-time-series', project.publicKey)).status).toBe(403)
  })
})
