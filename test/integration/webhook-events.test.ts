// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { unsubscribeToken } from '../../src/core/tracking/unsubscribe-links.ts'
import { addContacts, runCampaign } from '../helpers/campaigns.ts'
import { ManualClock } from '../helpers/clock.ts'
import { publishRecords } from '../helpers/domains.ts'
import { receivedBy, SECRET, textOf } from '../helpers/sending.ts'
import { createHook, startHookServer, type HookServer } from '../helpers/webhooks.ts'
import { createWorld, type World } from '../helpers/world.ts'

const BASE = 'https://mail.example.org'
const clock = new ManualClock(Date.parse('2026-11-06T09:00:00Z'))
let w: World
let hooks: HookServer
let projects = 0

beforeAll(async () => {
  w = await createWorld({
    clock,
    settings: { 'webhook-allow-private-targets': 'true', 'public-url': `${BASE}/` },
    mx: {
      onRcpt: (to) =>
        to.startsWith('gone') ? { code: 550, message: '5.1.1 <' + to + '>: Recipient address rejected: User unknown' } : to.startsWith('later') ? { code: 451, message: '4.7.1 Try again later' } : undefined,
    },
  })
  hooks = startHookServer()
})

afterAll(async () => {
  await w.close()
  hooks.stop()
})

const api = (method: string, path: string, body?: unknown, key = w.key) => w.t.request(method, path, { key, body })
const drain = () => w.t.app.webhooks.drain()
/** The types of the calls to `path` so far, in order. */
const typesAt = (path: string) => hooks.to(path).map((call) => call.payload.type)
const send = (to: string, html = '<p>Hello</p>') => api('POST', '/api/v1/emails', { from: 'ada@sender.example.com', to, subject: 'Events', html })

describe('email events', () => {
  test('a hard bounce is email.bounced with its facts, and unsubscribes the contact: contact.updated and contact.unsubscribed', async () => {
    const hook = await createHook(w, w.key, `${hooks.base}/ok/bounce`, ['email.bounced', 'contact.updated', 'contact.unsubscribed'])
    const contact = await api('POST', '/contacts', { email: 'gone@example.net' })
    const sent = await send('gone@example.net')
    await w.deliver()
    await drain()
    expect(typesAt('/ok/bounce')).toEqual(['email.bounced', 'contact.updated', 'contact.unsubscribed'])
    const [bounced, , unsubscribed] = hooks.to('/ok/bounce')
    expect(bounced!.payload.data).toMatchObject({ emailId: sent.body.emailId, status: 'BOUNCED', recipient: 'gone@example.net', details: { smtpCode: 550, hard: true } })
    expect(unsubscribed!.payload.data).toMatchObject({ id: contact.body.id, subscribed: false, source: 'hard_bounce' })
    await api('DELETE', `/webhooks/${hook.id}`)
  })

  test('a deferral is email.delivery_delayed, with when it is tried next', async () => {
    const hook = await createHook(w, w.key, `${hooks.base}/ok/delayed`, ['email.delivery_delayed'])
    await send('later@example.net')
    await w.deliver()
    await drain()
    const [delayed] = hooks.to('/ok/delayed')
    expect(delayed!.payload.data).toMatchObject({ status: 'DELIVERY_DELAYED', recipient: 'later@example.net', details: { smtpCode: 451, nextAttemptAt: expect.any(String) } })
    await api('DELETE', `/webhooks/${hook.id}`)
  })

  test('a suppressed recipient is email.suppressed', async () => {
    const hook = await createHook(w, w.key, `${hooks.base}/ok/suppressed`, ['email.suppressed', 'email.queued'])
    await api('POST', '/api/v1/suppressions', { email: 'blocked@example.net' })
    await send('blocked@example.net')
    await drain()
    expect(typesAt('/ok/suppressed')).toEqual(['email.suppressed'])
    expect(hooks.to('/ok/suppressed')[0]!.payload.data).toMatchObject({
      status: 'SUPPRESSED',
      recipient: 'blocked@example.net',
      details: { reason: 'manual' },
      suppression: { type: 'Manual', reason: 'manual' },
    })
    await api('DELETE', `/webhooks/${hook.id}`)
  })

  test('opens and clicks are email.opened and email.clicked, with the link and the user agent', async () => {
    const hook = await createHook(w, w.key, `${hooks.base}/ok/engaged`, ['email.opened', 'email.clicked'])
    await api('PATCH', `/domains/${w.domain.id}`, { transactionalOpenTracking: true, transactionalClickTracking: true })
    await send('reader@example.net', '<html><body><img src="https://cdn.example.com/logo.png" alt=""><p><a href="https://shop.example.com/sale">Sale</a></p></body></html>')
    await w.deliver()
    const html = textOf(receivedBy(w, 'reader@example.net'), 'text/html')!
    const path = (kind: string) => new RegExp(`${BASE.replace(/\./g, '\\.')}(/t/${kind}/[A-Za-z0-9_-]+)`).exec(html)![1]!
    const get = (p: string) => w.t.app.handle(new Request(`http://localhost${p}`, { headers: { 'user-agent': 'Reader/1' } }))
    await get(path('o'))
    await get(path('c'))
    await drain()
    expect(typesAt('/ok/engaged')).toEqual(['email.opened', 'email.clicked'])
    expect(hooks.to('/ok/engaged')[1]!.payload.data.details).toEqual({ url: 'https://shop.example.com/sale', userAgent: 'Reader/1' })
    await api('PATCH', `/domains/${w.domain.id}`, { transactionalOpenTracking: false, transactionalClickTracking: false })
    await api('DELETE', `/webhooks/${hook.id}`)
  })

  test('a campaign: email.queued for each of its emails, with the campaign, then campaign.sent', async () => {
    const key = (await w.t.project(`Campaigns ${++projects}`)).secretKey
    const hook = await createHook(w, w.key, `${hooks.base}/ok/campaign`, ['email.queued', 'campaign.sent'])
    await createHook(w, key, `${hooks.base}/ok/elsewhere`, ['*'])
    await addContacts(w, ['c1@example.net', 'c2@example.net', 'c3@example.net'])
    const draft = await api('POST', '/campaigns', { name: 'Hooked', subject: 'News', body: '<p>News</p>', from: 'news@sender.example.com', audienceType: 'ALL' })
    const id = draft.body.data.id
    await api('POST', `/campaigns/${id}/send`, {})
    await runCampaign(w, id)
    await drain()
    const calls = hooks.to('/ok/campaign')
    const queued = calls.filter((c) => c.payload.type === 'email.queued')
    expect(queued.map((c) => c.payload.data.to[0]).sort()).toEqual(expect.arrayContaining(['c1@example.net', 'c2@example.net', 'c3@example.net']))
    expect(queued.every((c) => c.payload.data.campaignId === id)).toBe(true)
    const sent = calls.filter((c) => c.payload.type === 'campaign.sent')
    expect(sent.map((c) => c.payload.data)).toEqual([{ id, name: 'Hooked', total: queued.length, sentAt: expect.any(String) }])
    expect(hooks.to('/ok/elsewhere')).toEqual([])
    await api('DELETE', `/webhooks/${hook.id}`)
  })
})

describe('contact events', () => {
  test('an unsubscribe link is contact.unsubscribed, saying how it came', async () => {
    const hook = await createHook(w, w.key, `${hooks.base}/ok/unsubscribe`, ['contact.unsubscribed'])
    await api('POST', '/contacts', { email: 'leaving@example.net' })
    const sent = await send('leaving@example.net')
    const answer = await w.t.app.handle(
      new Request(`http://localhost/unsubscribe/${unsubscribeToken(SECRET, sent.body.emailId)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      }),
    )
    expect(answer.status).toBe(200)
    await drain()
    expect(hooks.to('/ok/unsubscribe').map((c) => [c.payload.data.email, c.payload.data.source])).toEqual([['leaving@example.net', 'one-click']])
    await api('DELETE', `/webhooks/${hook.id}`)
  })

  test('a CSV import is contact.created for new contacts and contact.updated for the others', async () => {
    const key = (await w.t.project(`Import ${++projects}`)).secretKey
    await createHook(w, key, `${hooks.base}/ok/import`, ['contact.created', 'contact.updated'])
    await api('POST', '/contacts', { email: 'known@example.net' }, key)
    await drain()
    await w.t.app.imports.start()
    const upload = await w.t.app.handle(
      new Request('http://localhost/contacts/import', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
        body: 'email,plan\nknown@example.net,pro\nnew1@example.net,free\nnew2@example.net,free\n',
      }),
    )
    expect(upload.status).toBe(202)
    await w.t.app.imports.drain()
    await drain()
    const calls = hooks.to('/ok/import').slice(1)
    expect(calls.map((c) => [c.payload.type, c.payload.data.email]).sort()).toEqual([
      ['contact.created', 'new1@example.net'],
      ['contact.created', 'new2@example.net'],
      ['contact.updated', 'known@example.net'],
    ])
    expect(calls.find((c) => c.payload.data.email === 'known@example.net')!.payload.data.data).toEqual({ plan: 'pro' })
  })

  test("a contact book's bulk add is contact.created for new contacts and contact.updated for changed ones", async () => {
    const key = (await w.t.project(`Books ${++projects}`)).secretKey
    await createHook(w, key, `${hooks.base}/ok/book`, ['contact.created', 'contact.updated'])
    await api('POST', '/contacts', { email: 'member@example.net' }, key)
    const book = await api('POST', '/api/v1/contactBooks', { name: 'List' }, key)
    const added = await api('POST', `/api/v1/contactBooks/${book.body.id}/contacts/bulk`, [{ email: 'member@example.net', properties: { vip: true } }, { email: 'fresh@example.net' }], key)
    expect(added.status).toBeLessThan(300)
    await drain()
    expect(hooks.to('/ok/book').map((c) => [c.payload.type, c.payload.data.email])).toEqual([
      ['contact.created', 'member@example.net'],
      ['contact.created', 'fresh@example.net'],
      ['contact.updated', 'member@example.net'],
    ])
  })

  test('/v1/track is contact.created for a new contact, and nothing for one it leaves as it was', async () => {
    const key = (await w.t.project(`Tracking ${++projects}`)).secretKey
    await createHook(w, key, `${hooks.base}/ok/track`, ['*'])
    for (let i = 0; i < 3; i++) await api('POST', '/v1/track', { email: 'tracked@example.net', event: 'visit', data: { plan: 'pro' } }, key)
    await drain()
    expect(typesAt('/ok/track')).toEqual(['contact.created'])
  })
})

describe('domain events', () => {
  test('a domain whose records check out is domain.verified; one still wrong after the grace is domain.failed', async () => {
    const hook = await createHook(w, w.key, `${hooks.base}/ok/domains`, ['domain.verified', 'domain.failed'])
    const good = await api('POST', '/api/v1/domains', { name: 'second.example.com', region: 'us-east-1' })
    publishRecords(w.dns, good.body.dnsRecords)
    await w.t.app.checker.check(good.body.id)
    const bad = await api('POST', '/api/v1/domains', { name: 'broken.example.com', region: 'us-east-1' })
    await w.t.app.checker.check(bad.body.id)
    await w.t.app.checker.check(good.body.id)
    clock.advance(73 * 3_600_000)
    await w.t.app.checker.check(bad.body.id)
    await drain()
    expect(hooks.to('/ok/domains').map((c) => c.payload.data)).toEqual([
      expect.objectContaining({ id: good.body.id, name: 'second.example.com', status: 'SUCCESS', error: null, region: 'us-east-1', openTracking: expect.any(Boolean) }),
      expect.objectContaining({ id: bad.body.id, name: 'broken.example.com', status: 'FAILED', error: expect.stringContaining('72 h') }),
    ])
    expect(typesAt('/ok/domains')).toEqual(['domain.verified', 'domain.failed'])
    await api('DELETE', `/webhooks/${hook.id}`)
  })
})

describe('projects', () => {
  test('without a webhook, nothing is written for their events', async () => {
    const key = (await w.t.project(`Quiet ${++projects}`)).secretKey
    const before = await w.t.app.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    await api('POST', '/contacts', { email: 'quiet@example.net' }, key)
    await api('POST', '/v1/track', { email: 'quiet2@example.net', event: 'visit' }, key)
    const after = await w.t.app.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()
    expect(after.n).toBe(before.n)
  })
})
