// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { addContacts, campaignOf, messageIdsByRecipient, runCampaign } from '../helpers/campaigns.ts'
import { addUnverifiedDomain, leavesOf, receivedBy, textOf } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'

checkAnswersAgainstDocument()

let w: World
let contacts: Array<{ id: string; email: string }>

beforeAll(async () => {
  w = await createWorld()
  await addUnverifiedDomain(w, 'unverified.example.com')
  contacts = await addContacts(
    w,
    Array.from({ length: 12 }, (_, i) => `reader${i}@example.net`),
    (i) => (i % 2 === 0 ? { firstName: `Reader${i}`, plan: i < 6 ? 'pro' : 'free' } : { plan: 'free' }),
  )
})

afterAll(() => w.close())

const api = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })
const draft = (fields: Record<string, unknown> = {}) =>
  api('POST', '/campaigns', {
    name: 'November news',
    subject: 'News for {{data.firstName ?? "you"}}',
    body: '<html><body><p>Hello {{data.firstName ?? "there"}}, {{email}}</p><p><a href="https://example.org/read">Read</a></p><p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p></body></html>',
    from: 'news@sender.example.com',
    fromName: 'Sender News',
    audienceType: 'ALL',
    ...fields,
  })

const proOnly = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] }

describe('campaigns, dashboard form', () => {
  test('POST /campaigns answers {success, data} with a DRAFT and the size of its audience', async () => {
    const created = await draft()
    expect(created.status).toBe(201)
    expect(created.body.success).toBe(true)
    expect(created.body.data).toMatchObject({ name: 'November news', status: 'DRAFT', audienceType: 'ALL', from: 'news@sender.example.com', fromName: 'Sender News', totalRecipients: 12, sentCount: 0, segment: null })
  })

  test.each([
    ['a SEGMENT audience without a segment', { audienceType: 'SEGMENT' }, 422, 'segmentId'],
    ['a segment of no one', { audienceType: 'SEGMENT', segmentId: 'nope' }, 422, 'segmentId'],
    ['a FILTERED audience without a condition', { audienceType: 'FILTERED' }, 422, 'audienceCondition'],
    ['a bad condition, named by its path', { audienceType: 'FILTERED', audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'sounds like', value: 'x' }] }] } }, 422, 'audienceCondition.groups[0].filters[0].operator'],
    ['an unknown audience type', { audienceType: 'SOME' }, 422, 'audienceType'],
    ['a sender on an unverified domain', { from: 'news@unverified.example.com' }, 403, undefined],
    ['a sender on a domain that is not the project\'s', { from: 'news@elsewhere.example.com' }, 403, undefined],
    ['an empty subject', { subject: '' }, 422, 'subject'],
    ['a field it does not know', { sendNow: true }, 422, 'sendNow'],
  ])('refuses %s', async (_, fields, status, field) => {
    const answer = await draft(fields)
    expect(answer.status).toBe(status)
    if (field) expect(answer.body.errors.map((e: { field: string }) => e.field)).toContain(field)
    else expect(answer.body.code).toBe('DOMAIN_NOT_VERIFIED')
  })

  test('GET /campaigns pages newest first; GET /campaigns/{id} is wrapped and embeds the segment', async () => {
    const segment = (await api('POST', '/segments', { name: 'Pro', condition: proOnly })).body
    const withSegment = (await draft({ name: 'For pros', audienceType: 'SEGMENT', segmentId: segment.id })).body.data
    expect(withSegment.totalRecipients).toBe(3)
    const got = await api('GET', `/campaigns/${withSegment.id}`)
    expect(got.status).toBe(200)
    expect(got.body.data.segment).toMatchObject({ id: segment.id, name: 'Pro', memberCount: 3 })
    const page = await api('GET', '/campaigns?page=1&pageSize=1')
    expect(page.body).toMatchObject({ page: 1, pageSize: 1, totalPages: page.body.total })
    expect(page.body.data.map((c: { id: string }) => c.id)).toEqual([withSegment.id])
    expect((await api('GET', '/campaigns?pageSize=101')).status).toBe(422)
    expect((await api('GET', '/campaigns/no-such-campaign')).status).toBe(404)
  })

  test('PUT and PATCH change a DRAFT (and what it would reach); DELETE removes it', async () => {
    const id = (await draft()).body.data.id
    const patched = await api('PATCH', `/campaigns/${id}`, { audienceType: 'FILTERED', audienceCondition: proOnly, subject: 'Only pros' })
    expect(patched.body.data).toMatchObject({ subject: 'Only pros', audienceType: 'FILTERED', totalRecipients: 3 })
    // As segments answer theirs: every group shows its nested `conditions`, null when it has none.
    expect(patched.body.data.audienceCondition).toEqual({ logic: 'AND', groups: [{ filters: proOnly.groups[0]!.filters, conditions: null }] })
    const nested = { logic: 'OR', groups: [{ filters: proOnly.groups[0]!.filters, conditions: proOnly }] }
    const deeper = await api('PATCH', `/campaigns/${id}`, { audienceCondition: nested })
    expect(deeper.body.data.audienceCondition.groups[0].conditions).toEqual({ logic: 'AND', groups: [{ filters: proOnly.groups[0]!.filters, conditions: null }] })
    expect((await api('GET', `/campaigns/${id}`)).body.data.audienceCondition).toEqual(deeper.body.data.audienceCondition)
    const put = await api('PUT', `/campaigns/${id}`, { name: 'Renamed' })
    expect(put.body.data).toMatchObject({ name: 'Renamed', subject: 'Only pros', audienceType: 'FILTERED', totalRecipients: 3 })
    expect((await api('DELETE', `/campaigns/${id}`)).body).toEqual({ success: true, message: 'Campaign deleted' })
    expect((await api('GET', `/campaigns/${id}`)).status).toBe(404)
  })

  test('sending delivers each subscribed, unsuppressed contact one personalised, signed, unsubscribable message', async () => {
    await api('PATCH', `/contacts/${contacts[1]!.id}`, { subscribed: false })
    await api('POST', '/api/v1/suppressions', { email: contacts[3]!.email })
    const id = (await draft({ name: 'Real send' })).body.data.id
    const sent = await api('POST', `/campaigns/${id}/send`, {})
    expect(sent.status).toBe(200)
    expect(sent.body.data.status).toBe('SENDING')
    const done = await runCampaign(w, id)
    expect(done).toMatchObject({ status: 'SENT', totalRecipients: 10, sentCount: 10, deliveredCount: 10 })
    expect(done.sentAt).toBeString()
    const ids = messageIdsByRecipient(w)
    for (const [i, contact] of contacts.entries()) expect(ids.get(contact.email)?.length ?? 0).toBe(i === 1 || i === 3 ? 0 : 1)

    const message = receivedBy(w, 'reader0@example.net')
    expect(message.headers.subject).toBe('News for Reader0')
    expect(message.headers['list-unsubscribe']).toMatch(/^<http:\/\/[^>]+\/unsubscribe\/[^>]+>, <mailto:unsubscribe\+[^>]+>$/)
    expect(message.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click')
    expect(message.headers.precedence).toBe('bulk')
    expect(textOf(message, 'text/html')).toContain('Hello Reader0, reader0@example.net')
    expect(textOf(receivedBy(w, 'reader5@example.net'), 'text/html')).toContain('Hello there, reader5@example.net')
    expect(leavesOf(message).map((p) => p.headers['content-type']?.split(';')[0])).toEqual(['text/plain', 'text/html'])
    const dkim = await w.dkim(Buffer.from(message.raw, 'latin1'))
    expect(dkim.every((d) => d.status === 'pass')).toBe(true)
    expect((await api('POST', `/campaigns/${id}/send`, {})).status).toBe(409)
    await api('PATCH', `/contacts/${contacts[1]!.id}`, { subscribed: true })
    await api('DELETE', `/api/v1/suppressions/${encodeURIComponent(contacts[3]!.email)}`)
  })

  test('a campaign can be scheduled, paused, resumed and cancelled; a move its status does not allow is a 409', async () => {
    const id = (await draft({ name: 'Later' })).body.data.id
    const later = new Date(Date.now() + 3_600_000).toISOString()
    const scheduled = await api('POST', `/campaigns/${id}/send`, { scheduledFor: later })
    expect(scheduled.body.data).toMatchObject({ status: 'SCHEDULED', scheduledFor: later })
    await w.t.app.campaigns.drain()
    expect((await campaignOf(w, id)).status).toBe('SCHEDULED')
    expect((await api('POST', `/campaigns/${id}/resume`)).status).toBe(409)
    expect((await api('POST', `/campaigns/${id}/pause`)).body.data.status).toBe('PAUSED')
    expect((await api('POST', `/campaigns/${id}/resume`)).body.data.status).toBe('SCHEDULED')
    expect((await api('POST', `/campaigns/${id}/cancel`)).body.data.status).toBe('CANCELLED')
    expect((await api('POST', `/campaigns/${id}/pause`)).status).toBe(409)
    expect((await api('PATCH', `/campaigns/${id}`, { name: 'x' })).status).toBe(409)
    expect((await api('DELETE', `/campaigns/${id}`)).status).toBe(409)
    expect((await api('POST', `/campaigns/${id}/send`, { scheduledFor: 'tomorrow' })).status).toBe(422)
  })

  test('a campaign whose audience is empty is not sent', async () => {
    const nobody = { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'endsWith', value: '@nowhere.test' }] }] }
    const id = (await draft({ audienceType: 'FILTERED', audienceCondition: nobody })).body.data.id
    const answer = await api('POST', `/campaigns/${id}/send`, {})
    expect(answer.status).toBe(422)
    expect(answer.body.code).toBe('NO_RECIPIENTS')
    expect((await campaignOf(w, id)).status).toBe('DRAFT')
  })

  test('POST /campaigns/{id}/test sends one [TEST] copy, personalised for that address', async () => {
    const id = (await draft()).body.data.id
    const answer = await api('POST', `/campaigns/${id}/test`, { email: 'reader2@example.net' })
    expect(answer.status).toBe(200)
    await w.deliver()
    const message = receivedBy(w, 'reader2@example.net')
    expect(message.headers.subject).toBe('[TEST] News for Reader2')
    expect(textOf(message, 'text/html')).toContain('Hello Reader2')
    expect((await campaignOf(w, id)).status).toBe('DRAFT')
  })

  test('a campaign to a segment reaches its members once each and no one else; stats give the numbers and rates', async () => {
    const segment = (await api('POST', '/segments', { name: 'Pro again', condition: proOnly })).body
    const id = (await draft({ audienceType: 'SEGMENT', segmentId: segment.id })).body.data.id
    const before = messageIdsByRecipient(w)
    await api('POST', `/campaigns/${id}/send`)
    await runCampaign(w, id)
    const after = messageIdsByRecipient(w)
    const got = contacts.map((c) => (after.get(c.email)?.length ?? 0) - (before.get(c.email)?.length ?? 0))
    expect(got).toEqual([1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0])
    const stats = await api('GET', `/campaigns/${id}/stats`)
    expect(stats.body).toEqual({
      success: true,
      data: expect.objectContaining({ totalRecipients: 3, queuedCount: 3, sentCount: 3, deliveredCount: 3, bouncedCount: 0, deliveryRate: 100, openRate: 0 }),
    })
  })
})

describe('campaigns in batches, with tracking and unsubscribes', () => {
  const held = async (id: string) =>
    w.t.app.db
      .selectFrom('deliveries')
      .innerJoin('campaign_recipients', 'campaign_recipients.email_id', 'deliveries.email_id')
      .select(['deliveries.state', (eb) => eb.fn.countAll<number>().as('n')])
      .where('campaign_recipients.campaign_id', '=', id)
      .groupBy('deliveries.state')
      .execute()
      .then((rows) => Object.fromEntries(rows.map((r) => [r.state, Number(r.n)])))

  test('a batch waits for the last to leave the queue; pause holds what is queued and resume sends it, each contact once', async () => {
    const before = w.mx.received.length
    // The delivery loop waits, so that what the campaign queued is seen queued however busy the machine.
    await w.t.app.deliveries.stop()
    const id = (await draft({ name: 'Batched', batchSize: 4 })).body.data.id
    await api('POST', `/campaigns/${id}/send`)
    await w.t.app.campaigns.drain()
    expect(await held(id)).toEqual({ queued: 4 })
    await w.t.app.campaigns.drain()
    expect(await held(id)).toEqual({ queued: 4 })
    expect((await api('POST', `/campaigns/${id}/pause`)).body.data.status).toBe('PAUSED')
    expect(await held(id)).toEqual({ paused: 4 })
    await w.t.app.deliveries.start()
    await w.deliver()
    await w.t.app.campaigns.drain()
    expect(w.mx.received.length).toBe(before)
    expect((await api('POST', `/campaigns/${id}/resume`)).body.data.status).toBe('SENDING')
    const done = await runCampaign(w, id)
    expect(done).toMatchObject({ status: 'SENT', totalRecipients: 12, deliveredCount: 12 })
    expect(w.mx.received.length).toBe(before + 12)
    expect(await held(id)).toEqual({ delivered: 12 })
  })

  test('cancelling takes what waits out of the queue; nothing more is sent', async () => {
    const before = w.mx.received.length
    await w.t.app.deliveries.stop()
    const id = (await draft({ name: 'Cancelled', batchSize: 5 })).body.data.id
    await api('POST', `/campaigns/${id}/send`)
    await w.t.app.campaigns.drain()
    expect((await api('POST', `/campaigns/${id}/cancel`)).body.data.status).toBe('CANCELLED')
    expect(await held(id)).toEqual({ cancelled: 5 })
    await w.t.app.campaigns.drain()
    await w.t.app.deliveries.start()
    await w.deliver()
    expect(w.mx.received.length).toBe(before)
  })

  test('opens and clicks count each contact once; an unsubscribe through the message counts and unsubscribes', async () => {
    await w.t.request('PATCH', `/domains/${w.domain.id}`, { key: w.key, body: { openTracking: true, clickTracking: true } })
    // A logo of its own: the pixel then costs the letter no spam points, and goes in (pixel-cost.ts).
    const body = '<html><body><p><img src="https://cdn.example.org/logo.png" alt="Logo"></p><p>Hello {{email}}</p><p><a href="https://example.org/read">Read</a></p></body></html>'
    const id = (await draft({ name: 'Tracked', audienceType: 'FILTERED', audienceCondition: proOnly, body })).body.data.id
    await api('POST', `/campaigns/${id}/send`)
    await runCampaign(w, id)
    const html = textOf(receivedBy(w, 'reader0@example.net'), 'text/html')!
    const path = (kind: 'o' | 'c') => new URL([...html.matchAll(new RegExp(`https?://[^"]+/t/${kind}/[^"]+`, 'g'))][0]![0]).pathname
    const unsubscribe = new URL(/href="([^"]+\/unsubscribe\/[^"]+)"/.exec(html)![1]!).pathname
    for (let i = 0; i < 2; i++) {
      expect((await w.t.request('GET', path('o'))).status).toBe(200)
      expect((await w.t.request('GET', path('c'))).status).toBe(302)
    }
    const oneClick = await w.t.request('POST', unsubscribe, { raw: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(oneClick.status).toBe(200)
    const stats = (await api('GET', `/campaigns/${id}/stats`)).body.data
    expect(stats).toMatchObject({ openedCount: 1, clickedCount: 1, unsubscribedCount: 1, deliveredCount: 3 })
    expect((await api('GET', `/api/v1/campaigns/${id}`)).body).toMatchObject({ opened: 1, clicked: 1, unsubscribed: 1 })
    expect((await api('GET', `/contacts/${contacts[0]!.id}`)).body.subscribed).toBe(false)
  })
})

test('GET /campaigns without a status lists campaigns of every status; with one, those alone', async () => {
  const statuses = new Set((await api('GET', '/campaigns?pageSize=100')).body.data.map((c: { status: string }) => c.status))
  expect(statuses).toEqual(new Set(['DRAFT', 'SENT', 'CANCELLED']))
  const sent = (await api('GET', '/campaigns?pageSize=100&status=SENT')).body.data
  expect(sent.length).toBeGreaterThan(0)
  expect(sent.every((c: { status: string }) => c.status === 'SENT')).toBe(true)
})
