// @database-incidental: the HTTP protocol (routes, headers, errors, input checks); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { runCampaign } from '../helpers/campaigns.ts'
import { receivedBy, textOf, type MimePart } from '../helpers/sending.ts'
import { FROM, settle, track, workflow } from '../helpers/workflows.ts'
import { createWorld, type World } from '../helpers/world.ts'

const BASE = 'https://mail.example.org'
let w: World

beforeAll(async () => {
  w = await createWorld({ settings: { 'public-url': BASE } })
})

afterAll(() => w.close())

const api = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })
const fresh = (name: string) => `${name}-${Bun.randomUUIDv7()}@example.net`
const setTracking = (flags: Record<string, boolean>) => api('PATCH', `/domains/${w.domain.id}`, flags)

const RESET = '<html><body><p>Your code is 493021.</p><p><a href="https://app.example.com/reset?token=s3cr3t">Reset your password</a></p><p><a href="https://app.example.com/help">Help</a></p></body></html>'
const NEWS = '<html><body><p>Hello {{email}}</p><p><a href="https://shop.example.com/sale">Sale</a></p></body></html>'

const htmlOf = (message: MimePart) => textOf(message, 'text/html')!
const tracked = (html: string, kind: 'o' | 'c') => (html.match(new RegExp(`${BASE}/t/${kind}/`, 'g')) ?? []).length
const unsubscribeUrlOf = (message: MimePart) => /<(https:[^>]+)>/.exec(message.headers['list-unsubscribe']!)![1]!

async function marketingTemplate() {
  const created = await api('POST', '/templates', { name: 'News', subject: 'News', body: NEWS, type: 'MARKETING' })
  expect(created.status).toBeLessThan(300)
  return created.body.id as string
}

describe('tracking is per stream, and per message', () => {
  test('a new domain tracks nothing of transactional mail, and says so apart from its marketing switches', async () => {
    const domain = (await api('GET', `/api/v1/domains/${w.domain.id}`)).body
    expect(domain).toMatchObject({ openTracking: false, clickTracking: false, transactionalOpenTracking: false, transactionalClickTracking: false })
    const changed = await setTracking({ openTracking: true, clickTracking: true })
    expect(changed.body).toMatchObject({ openTracking: true, clickTracking: true, transactionalOpenTracking: false, transactionalClickTracking: false })
  })

  test('a password reset sent with /v1/send on a domain that tracks marketing mail: no pixel, no rewritten link, no bulk headers', async () => {
    await setTracking({ openTracking: true, clickTracking: true, transactionalOpenTracking: false, transactionalClickTracking: false })
    const to = fresh('reset')
    expect((await api('POST', '/v1/send', { to, from: 'ada@sender.example.com', subject: 'Reset your password', body: RESET })).status).toBe(200)
    await w.deliver()
    const message = receivedBy(w, to)
    expect(htmlOf(message)).toContain('href="https://app.example.com/reset?token=s3cr3t"')
    expect([tracked(htmlOf(message), 'o'), tracked(htmlOf(message), 'c')]).toEqual([0, 0])
    for (const name of ['list-unsubscribe', 'list-unsubscribe-post', 'feedback-id', 'precedence']) expect(message.headers[name]).toBeUndefined()
  })

  test('trackClicks on one message tracks its links but the one that carries a secret; trackOpens: false drops the pixel', async () => {
    await setTracking({ transactionalOpenTracking: true, transactionalClickTracking: false })
    const to = fresh('asked')
    const body = { from: 'ada@sender.example.com', to, subject: 'Reset', html: RESET, trackClicks: true, trackOpens: false }
    expect((await api('POST', '/api/v1/emails', body)).status).toBe(200)
    await w.deliver()
    const html = htmlOf(receivedBy(w, to))
    expect([tracked(html, 'o'), tracked(html, 'c')]).toEqual([0, 1])
    expect(html).toContain('href="https://app.example.com/reset?token=s3cr3t"')
    expect(html).not.toContain('https://app.example.com/help')
    await setTracking({ transactionalOpenTracking: false })
  })

  test('trackOpens and trackClicks must be booleans', async () => {
    const answer = await api('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to: fresh('bad'), subject: 'x', html: '<p>x</p>', trackOpens: 'yes' })
    expect(answer.status).toBe(422)
    expect(JSON.stringify(answer.body.errors)).toContain('trackOpens')
  })
})

describe('every marketing email is bulk mail', () => {
  test('a MARKETING template through /v1/send: one-click unsubscribe, a footer link left untracked, Feedback-ID, marketing click tracking', async () => {
    await setTracking({ openTracking: true, clickTracking: true })
    const template = await marketingTemplate()
    const to = fresh('news')
    const sent = await api('POST', '/v1/send', { to, from: 'ada@sender.example.com', template, subscribed: true })
    expect(sent.status).toBe(200)
    await w.deliver()
    const message = receivedBy(w, to)
    const url = unsubscribeUrlOf(message)
    expect(message.headers['list-unsubscribe']).toMatch(/^<https:\/\/mail\.example\.org\/unsubscribe\/[^>]+>, <mailto:unsubscribe\+[^@]+@mst\.sender\.example\.com\?subject=unsubscribe>$/)
    expect(message.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click')
    expect(message.headers['feedback-id']).toBe(`${template}:${w.projectId}:send:mailstead`)
    const html = htmlOf(message)
    expect(html).toContain(`href="${url}"`)
    // No pixel: in a short letter without images of its own it would cost spam points (pixel-cost.ts).
    expect([tracked(html, 'o'), tracked(html, 'c')]).toEqual([0, 1])
    expect(textOf(message, 'text/plain')).toContain(url)
    expect((await w.t.request('POST', new URL(url).pathname, { raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(200)
    expect((await api('GET', `/contacts/${sent.body.data.emails[0].contact.id}`)).body.subscribed).toBe(false)
  })

  test('a body that places {{unsubscribeUrl}} itself gets no second footer; a header of the same name gives way to ours', async () => {
    const created = await api('POST', '/templates', { name: 'Own link', subject: 'S', body: '<p>Hi</p><a href="{{unsubscribeUrl}}">Leave</a>', type: 'MARKETING' })
    const to = fresh('own')
    expect((await api('POST', '/v1/send', { to, from: 'ada@sender.example.com', template: created.body.id, headers: { 'list-unsubscribe': '<https://elsewhere.example/>' } })).status).toBe(200)
    await w.deliver()
    const message = receivedBy(w, to)
    const html = htmlOf(message)
    expect(html.match(/\/unsubscribe\//g)).toHaveLength(1)
    expect(html).toContain(`<a href="${unsubscribeUrlOf(message)}">Leave</a>`)
    expect(message.headers['list-unsubscribe']).not.toContain('elsewhere')
  })

  test('a TRANSACTIONAL template stays transactional', async () => {
    const created = await api('POST', '/templates', { name: 'Receipt', subject: 'Receipt', body: '<p>Paid</p>', type: 'TRANSACTIONAL' })
    const to = fresh('receipt')
    expect((await api('POST', '/v1/send', { to, from: 'ada@sender.example.com', template: created.body.id })).status).toBe(200)
    await w.deliver()
    const message = receivedBy(w, to)
    expect(message.headers['list-unsubscribe']).toBeUndefined()
    expect(htmlOf(message)).not.toContain('/unsubscribe/')
  })

  test('a workflow SEND_EMAIL step is marketing mail: headers, footer and Feedback-ID naming the workflow', async () => {
    const flow = await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'joined' },
      steps: [{ id: 'welcome', type: 'SEND_EMAIL', config: { from: FROM, subject: 'Welcome', body: '<p>Welcome</p>' } }],
    })
    const to = fresh('flow')
    await track(w, to, 'joined')
    await settle(w)
    const message = receivedBy(w, to)
    expect(message.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click')
    expect(message.headers['feedback-id']).toBe(`${flow.id}:${w.projectId}:workflow:mailstead`)
    expect(htmlOf(message)).toContain(`href="${unsubscribeUrlOf(message)}"`)
  })

  test('a step that declares itself transactional gets none of it, and reaches an unsubscribed contact', async () => {
    await workflow(w, {
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'paid' },
      steps: [{ id: 'receipt', type: 'SEND_EMAIL', config: { from: FROM, subject: 'Receipt', body: '<p>Paid</p>', transactional: true } }],
    })
    const to = fresh('paid')
    expect((await w.t.request('POST', '/v1/track', { key: w.key, body: { email: to, event: 'paid', subscribed: false } })).status).toBe(200)
    await settle(w)
    const message = receivedBy(w, to)
    expect(message.headers['list-unsubscribe']).toBeUndefined()
    expect(message.headers['feedback-id']).toBeUndefined()
    expect(htmlOf(message)).not.toContain('/unsubscribe/')
  })

  test('transactional in a step must be a boolean', async () => {
    const answer = await api('POST', '/workflows', { name: 'Bad', triggerType: 'MANUAL', triggerConfig: {}, steps: [{ id: 's', type: 'SEND_EMAIL', config: { from: FROM, subject: 'S', body: '<p>x</p>', transactional: 'yes' } }] })
    expect(answer.status).toBe(422)
    expect(JSON.stringify(answer.body.errors)).toContain('transactional')
  })

  test("a campaign's email carries Feedback-ID with the campaign and project", async () => {
    const to = fresh('campaign')
    await api('POST', '/contacts', { email: to })
    const created = await api('POST', '/campaigns', { name: 'Spring', subject: 'Spring', body: NEWS, from: 'news@sender.example.com', audienceType: 'ALL' })
    const id = created.body.data.id as string
    expect((await api('POST', `/campaigns/${id}/send`, {})).status).toBe(200)
    await runCampaign(w, id)
    const message = receivedBy(w, to)
    expect(message.headers['feedback-id']).toBe(`${id}:${w.projectId}:campaign:mailstead`)
    expect(message.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click')
    expect(message.headers.precedence).toBe('bulk')
  })
})
