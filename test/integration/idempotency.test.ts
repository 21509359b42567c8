// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ManualClock } from '../helpers/clock.ts'
import { receivedCount, rowCounts } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
const clock = new ManualClock(Date.now())

beforeAll(async () => {
  w = await createWorld({ clock })
})

afterAll(() => w.close())

const HOUR = 3600_000
const FROM = 'ada@sender.example.com'
const post = (path: string, body: unknown, key?: string, apiKey = w.key) =>
  w.t.request('POST', path, { key: apiKey, body, headers: key === undefined ? {} : { 'Idempotency-Key': key } })

/** Each send route with a body for one recipient, and a different body. */
const routes = (to: string) =>
  [
    ['/v1/send', { to, from: FROM, subject: 'Hi', body: '<p>Hi</p>' }, { to, from: FROM, subject: 'Hi again', body: '<p>Hi</p>' }],
    ['/api/v1/emails', { to, from: FROM, subject: 'Hi', html: '<p>Hi</p>' }, { to, from: FROM, subject: 'Hi', html: '<p>Other</p>' }],
    ['/api/v1/emails/batch', [{ to, from: FROM, subject: 'Hi', text: 'Hi' }], [{ to, from: FROM, subject: 'Hi', text: 'Hi' }, { to, from: FROM, subject: 'Two', text: 'Two' }]],
  ] as const

describe('Idempotency-Key', () => {
  test.each(routes('x').map(([path]) => path))('%s: the same key and body answers the first answer again and sends nothing more', async (path) => {
    const to = `same-${path.replaceAll('/', '-')}@example.net`
    const [, body] = routes(to).find(([p]) => p === path)!
    const first = await post(path, body, `same-${path}`)
    expect(first.status).toBe(200)
    await w.deliver()
    const after = await rowCounts(w)
    clock.advance(HOUR)
    const again = await post(path, body, `same-${path}`)
    expect(again).toMatchObject({ status: 200, body: first.body })
    await w.deliver()
    expect(await rowCounts(w)).toEqual(after)
    expect(receivedCount(w, to)).toBe(1)
  })

  test.each(routes('x').map(([path]) => path))('%s: the same key with another body is a 409, and nothing is sent', async (path) => {
    const [, body, other] = routes(`conflict-${path.replaceAll('/', '-')}@example.net`).find(([p]) => p === path)!
    expect((await post(path, body, `conflict-${path}`)).status).toBe(200)
    await w.deliver()
    const before = await rowCounts(w)
    const response = await post(path, other, `conflict-${path}`)
    expect(response).toMatchObject({ status: 409, body: { code: 'CONFLICT', success: false } })
    await w.deliver()
    expect(await rowCounts(w)).toEqual(before)
  })

  test('without a key, the same body is sent twice', async () => {
    const [[path, body]] = routes('twice@example.net')
    const first = await post(path, body)
    const second = await post(path, body)
    expect(second.body.data.emails[0].email).not.toBe(first.body.data.emails[0].email)
    await w.deliver()
    expect(receivedCount(w, 'twice@example.net')).toBe(2)
  })

  test('a refused request does not use up its key', async () => {
    const body = { to: 'fixed@example.net', from: FROM, subject: 'Hi', html: '<p>Hi</p>' }
    expect((await post('/api/v1/emails', { ...body, to: 'broken' }, 'retry-after-fix')).status).toBe(422)
    const fixed = await post('/api/v1/emails', body, 'retry-after-fix')
    expect(fixed.status).toBe(200)
    expect((await post('/api/v1/emails', body, 'retry-after-fix')).body).toEqual(fixed.body)
  })

  test('a key is remembered for 24 hours, then it is free again', async () => {
    const body = { to: 'day@example.net', from: FROM, subject: 'Hi', html: '<p>Hi</p>' }
    const first = await post('/api/v1/emails', body, 'one-day')
    clock.advance(24 * HOUR - 1000)
    expect((await post('/api/v1/emails', body, 'one-day')).body).toEqual(first.body)
    clock.advance(2000)
    const later = await post('/api/v1/emails', body, 'one-day')
    expect(later.status).toBe(200)
    expect(later.body.emailId).not.toBe(first.body.emailId)
    await w.deliver()
    expect(receivedCount(w, 'day@example.net')).toBe(2)
  })

  test('requests that race with one key send once, and all get the same answer', async () => {
    const body = { to: 'race@example.net', from: FROM, subject: 'Hi', html: '<p>Hi</p>' }
    const answers = await Promise.all(Array.from({ length: 8 }, () => post('/api/v1/emails', body, 'racing')))
    expect(new Set(answers.map((a) => `${a.status} ${JSON.stringify(a.body)}`)).size).toBe(1)
    await w.deliver()
    expect(receivedCount(w, 'race@example.net')).toBe(1)
  })

  test('a key belongs to its project: another project never gets the first project’s answer', async () => {
    const body = { to: 'mine@example.net', from: FROM, subject: 'Hi', html: '<p>Hi</p>' }
    expect((await post('/api/v1/emails', body, 'shared-key')).status).toBe(200)
    const other = await w.t.project('Other')
    const response = await post('/api/v1/emails', body, 'shared-key', other.secretKey)
    expect(response).toMatchObject({ status: 403, body: { code: 'DOMAIN_NOT_VERIFIED' } })
  })

  test.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['with a space', 'two words'],
    ['with non-ASCII characters', 'clé'],
  ])('a key %s is a 422, and nothing is sent', async (_, key) => {
    // What earlier tests sent is settled first: its delivery events would count as something sent.
    await w.deliver()
    const before = await rowCounts(w)
    const response = await post('/api/v1/emails', { to: 'badkey@example.net', from: FROM, subject: 'Hi', html: '<p>Hi</p>' }, key)
    expect(response).toMatchObject({ status: 422, body: { errors: [{ field: 'Idempotency-Key' }] } })
    expect(await rowCounts(w)).toEqual(before)
  })
})
