// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { browserOf, makeAccount, PASSWORD, signIn } from '../helpers/accounts.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'
import { parseMime, type MimePart } from '../helpers/sending.ts'
import { createHook, startHookServer, type HookServer } from '../helpers/webhooks.ts'
import { FROM, settle } from '../helpers/workflows.ts'
import { createWorld, type World } from '../helpers/world.ts'

/*
 * A contact's page through HTTP (its events, emails, segments and books with consents, workflow
 * runs), its privacy export, and its erasure: afterwards its address is found nowhere through the
 * API, and mail to it is suppressed by the hash the erasure kept.
 */

checkAnswersAgainstDocument()

let w: World
let hooks: HookServer
const ADDRESS = 'ada@example.net'
const api = (method: string, path: string, body?: unknown) => w.t.request(method, path, { key: w.key, body })
let contactId: string
let bookId: string
let segmentId: string
let workflowId: string
let hookId: string

const leaves = (part: MimePart): MimePart[] => (part.parts.length > 0 ? part.parts.flatMap(leaves) : [part])

async function confirmationLink(to: string): Promise<string> {
  await w.deliver()
  const mail = w.mx.received.find((m) => m.to.includes(to))!
  const body = leaves(parseMime(mail.raw.toString('latin1'))).map((p) => p.content.toString('utf8')).join('\n')
  return new URL(/https?:\/\/[^\s"'<>]+\/confirm\/[a-z0-9-]+/.exec(body)![0]).pathname
}

/** The data of the webhook deliveries of one event type, newest first. */
async function payloadsOf(type: string) {
  const { deliveries } = (await api('GET', `/webhooks/${hookId}/deliveries?pageSize=100`)).body
  return deliveries.filter((d: { type: string }) => d.type === type).map((d: { payload: { data: unknown } }) => d.payload.data)
}

beforeAll(async () => {
  hooks = startHookServer()
  w = await createWorld({ settings: { 'webhook-allow-private-targets': 'true' } })
  hookId = (await createHook(w, w.key, `${hooks.base}/hook`)).id
  // A book with double opt-in, joined by confirming the link from a browser.
  const book = await api('POST', '/api/v1/contactBooks', { name: 'Letters', doubleOptInEnabled: true, doubleOptInFrom: 'hello@sender.example.com', doubleOptInSubject: 'Confirm Letters' })
  bookId = book.body.id
  contactId = (await api('POST', `/api/v1/contactBooks/${bookId}/contacts`, { email: ADDRESS, properties: { plan: 'free' } })).body.contactId
  const confirmed = await w.t.request('POST', await confirmationLink(ADDRESS), { headers: { 'user-agent': 'TestBrowser/1.0' } })
  expect(confirmed.status).toBe(200)
  // A listed segment, and a condition that matches it.
  segmentId = (await api('POST', '/segments', { name: 'VIPs', type: 'STATIC' })).body.id
  expect((await api('POST', `/segments/${segmentId}/members`, { emails: [ADDRESS] })).status).toBeLessThan(300)
  await api('POST', '/segments', { name: 'Pro plan', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] } })
  // An event, an edit, a transactional email, a workflow run that mails it.
  expect((await api('POST', '/v1/track', { email: ADDRESS, event: 'signed-up', data: { source: 'ad' } })).status).toBe(200)
  expect((await api('PATCH', `/contacts/${contactId}`, { data: { plan: 'pro', seats: 3 } })).status).toBe(200)
  expect((await api('POST', '/api/v1/emails', { to: ADDRESS, from: 'shop@sender.example.com', subject: 'Your receipt', html: '<p>Thanks</p>' })).status).toBe(200)
  const flow = await api('POST', '/workflows', { name: 'Welcome', enabled: true, triggerType: 'MANUAL', steps: [{ id: 'mail', type: 'SEND_EMAIL', config: { subject: 'Welcome', body: '<p>Hi</p>', from: FROM } }] })
  workflowId = flow.body.id
  expect((await api('POST', `/workflows/${workflowId}/trigger`, { contactIds: [contactId] })).body.entered).toBe(1)
  await settle(w)
})

afterAll(async () => {
  await w.close()
  hooks.stop()
})

describe("a contact's page", () => {
  test('its events, newest first, paged by cursor; an edit is a contact.updated event saying what changed', async () => {
    const first = await api('GET', `/contacts/${contactId}/events?limit=1`)
    expect(first.status).toBe(200)
    const cursor: string = first.body.cursor
    expect({ hasMore: first.body.hasMore, cursor: typeof cursor }).toEqual({ hasMore: true, cursor: 'string' })
    expect(first.body.events).toEqual([{ id: expect.any(String), name: 'contact.updated', data: { data: { plan: { from: 'free', to: 'pro' }, seats: { from: null, to: 3 } } }, createdAt: expect.any(String) }])
    const rest = await api('GET', `/contacts/${contactId}/events?limit=50&cursor=${cursor}`)
    expect(rest.body.events.map((e: { name: string }) => e.name)).toContain('signed-up')
    expect(rest.body.events.map((e: { id: string }) => e.id)).not.toContain(first.body.events[0].id)
    expect((await api('GET', `/contacts/${contactId}/events?cursor=nope`)).body.errors).toMatchObject([{ field: 'cursor' }])
  })

  test('its emails with their states: the confirmation, the receipt and the workflow mail', async () => {
    const emails = await api('GET', `/contacts/${contactId}/emails`)
    expect(emails.status).toBe(200)
    expect(emails.body.count).toBe(3)
    expect(emails.body.data.map((e: { subject: string }) => e.subject).sort()).toEqual(['Confirm Letters', 'Welcome', 'Your receipt'])
    for (const email of emails.body.data) expect(email).toMatchObject({ to: [ADDRESS], status: 'DELIVERED' })
    expect((await api('GET', `/contacts/${contactId}/emails?limit=1&page=2`)).body.data).toHaveLength(1)
  })

  test('its segments and books, the book with the consent given by the confirmation', async () => {
    const memberships = await api('GET', `/contacts/${contactId}/memberships`)
    expect(memberships.status).toBe(200)
    expect(memberships.body.segments.map((s: { name: string }) => s.name).sort()).toEqual(['Pro plan', 'VIPs'])
    expect(memberships.body.books).toEqual([
      {
        id: bookId,
        name: 'Letters',
        emoji: expect.any(String),
        state: 'listed',
        since: expect.any(String),
        consent: { confirmedAt: expect.any(String), method: 'confirmation', clientIp: null, userAgent: 'TestBrowser/1.0', agreedTo: expect.objectContaining({ book: 'Letters', subject: 'Confirm Letters' }) },
      },
    ])
  })

  test('its workflow runs with their state and workflow', async () => {
    const runs = await api('GET', `/contacts/${contactId}/runs`)
    expect(runs.status).toBe(200)
    expect(runs.body).toMatchObject({ total: 1, page: 1, executions: [{ workflowId, workflowName: 'Welcome', contactId, state: 'COMPLETED' }] })
  })

  test('an unknown contact is a 404 on each', async () => {
    for (const part of ['events', 'emails', 'memberships', 'runs', 'privacy-export']) {
      expect((await api('GET', `/contacts/00000000-0000-7000-8000-000000000000/${part}`)).status).toBe(404)
    }
  })
})

describe('privacy export', () => {
  test('is a JSON attachment with everything held about the contact', async () => {
    const exported = await api('GET', `/contacts/${contactId}/privacy-export`)
    expect(exported.status).toBe(200)
    expect(exported.headers.get('content-disposition')).toBe(`attachment; filename="contact-${contactId}.json"`)
    const body = exported.body
    expect(body.contact).toMatchObject({ id: contactId, email: ADDRESS, subscribed: true, data: { plan: 'pro', seats: 3 } })
    expect(body.events.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['signed-up', 'contact.updated']))
    expect(body.emails).toHaveLength(3)
    for (const email of body.emails) {
      expect(email.events.map((e: { status: string }) => e.status)).toEqual(expect.arrayContaining(['QUEUED', 'SENT', 'DELIVERED']))
      expect(email.deliveries).toEqual([expect.objectContaining({ recipient: ADDRESS, state: 'delivered' })])
    }
    expect(body.books[0].consent).toMatchObject({ userAgent: 'TestBrowser/1.0' })
    expect(body.optIns).toEqual([expect.objectContaining({ bookId, method: 'confirmation', userAgent: 'TestBrowser/1.0', confirmedAt: expect.any(String) })])
    expect(body.segments.map((s: { name: string }) => s.name).sort()).toEqual(['Pro plan', 'VIPs'])
    expect(body.workflowRuns).toEqual([expect.objectContaining({ workflowName: 'Welcome', state: 'COMPLETED', history: expect.any(Array) })])
  })
})

describe('erase', () => {
  test('a member may not erase (403); an owner may', async () => {
    const project = (await w.t.request('GET', '/api/v1/project', { key: w.key })).body
    await makeAccount(w.t, 'owner@example.com')
    const owner = await signIn(w.t, 'owner@example.com')
    // The project was made by a key before any account: the first account owns it.
    const invited = await w.t.request('POST', '/api/v1/project/invitations', { headers: owner.headers({ project: project.id }), body: { email: 'member@example.com', role: 'member' } })
    expect(invited.status).toBe(201)
    const token = new URL(invited.body.link).searchParams.get('token')
    const member = browserOf(await w.t.request('POST', '/api/v1/invitations/accept', { body: { token, password: PASSWORD } }))
    const refused = await w.t.request('POST', `/contacts/${contactId}/erase`, { headers: member.headers({ project: project.id }) })
    expect(refused.status).toBe(403)
    expect(refused.body.message).toContain("cannot delete contacts' data in bulk or erase a contact")
    expect((await api('GET', `/contacts/${contactId}`)).status).toBe(200)

    const erased = await w.t.request('POST', `/contacts/${contactId}/erase`, { headers: owner.headers({ project: project.id }) })
    expect(erased.status).toBe(200)
    expect(erased.body).toMatchObject({ id: contactId, erased: { emails: 3, workflowRuns: 1 }, suppression: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) })
    expect(erased.body.erased.events).toBeGreaterThanOrEqual(2)
    expect(erased.body.erased.webhookDeliveries).toBeGreaterThan(0)
  })

  test('afterwards the address is found nowhere through the API', async () => {
    const found = (response: { body: unknown }) => JSON.stringify(response.body).toLowerCase().includes(ADDRESS)
    expect((await api('GET', `/contacts/${contactId}`)).status).toBe(404)
    expect((await api('GET', `/contacts/${contactId}/events`)).status).toBe(404)
    expect(found(await api('GET', `/contacts?search=${ADDRESS}`))).toBe(false)
    expect(found(await api('GET', '/contacts?limit=100'))).toBe(false)
    expect(found(await api('GET', `/api/v1/emails?recipient=${ADDRESS}`))).toBe(false)
    expect(found(await api('GET', '/api/v1/emails?limit=100'))).toBe(false)
    expect(found(await api('GET', `/webhooks/${hookId}/deliveries?pageSize=100`))).toBe(false)
    expect(found(await api('GET', `/segments/${segmentId}/contacts?pageSize=100`))).toBe(false)
    expect(found(await api('GET', `/api/v1/contactBooks/${bookId}/contacts`))).toBe(false)
    expect(found(await api('GET', `/workflows/${workflowId}/executions`))).toBe(false)
    expect(found(await api('GET', `/api/v1/suppressions?limit=100`))).toBe(false)
    expect(found(await api('GET', `/api/v1/suppressions?search=${ADDRESS}`))).toBe(false)
    // The webhooks heard of the erasure by id alone.
    const deleted = await payloadsOf('contact.deleted')
    expect(deleted).toEqual([{ id: contactId, email: null, erased: true }])
  })

  test('a plain delete is no erasure: webhooks hear of it with the address', async () => {
    const made = (await api('POST', '/contacts', { email: 'gone@example.net' })).body
    expect((await api('DELETE', `/contacts/${made.id}`)).status).toBe(200)
    expect(await payloadsOf('contact.deleted')).toContainEqual({ id: made.id, email: 'gone@example.net', erased: false })
  })

  test('a new send to the erased address is suppressed, whatever its case; lifting the suppression lets mail through again', async () => {
    const sent = await api('POST', '/api/v1/emails', { to: 'Ada@Example.net', from: 'shop@sender.example.com', subject: 'Come back', html: '<p>?</p>' })
    expect(sent.status).toBe(200)
    await w.deliver()
    const email = (await api('GET', `/api/v1/emails/${sent.body.emailId}`)).body
    expect(email.emailEvents.map((e: { status: string }) => e.status)).toEqual(['SUPPRESSED'])
    expect(w.mx.received.filter((m) => m.raw.toString('latin1').includes('Come back'))).toEqual([])

    expect((await api('DELETE', `/api/v1/suppressions/${encodeURIComponent(ADDRESS)}`)).status).toBe(200)
    const again = await api('POST', '/api/v1/emails', { to: ADDRESS, from: 'shop@sender.example.com', subject: 'Welcome back', html: '<p>!</p>' })
    await w.deliver()
    expect((await api('GET', `/api/v1/emails/${again.body.emailId}`)).body.status).toBe('DELIVERED')
  })
})
