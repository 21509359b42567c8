// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { NEEDS_PEER_DOCUMENTS, NO_PEER_DOCUMENTS, schemaErrors, useSendResponse } from '../helpers/peer-schema.ts'
import { ManualClock } from '../helpers/clock.ts'
import { parseMime, type MimePart } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
const clock = new ManualClock(Date.now())

beforeAll(async () => {
  w = await createWorld({ clock })
})

afterAll(() => w.close())

const BASE = '/api/v1/contactBooks'
const call = (method: string, path: string, body?: unknown) => w.t.request(method, `${BASE}${path}`, { key: w.key, body })
const fieldOf = (response: { body: any }) => response.body.errors?.[0]

describe('contact books: double opt-in settings', () => {
  test('are accepted on create and update and returned on read', async () => {
    const created = await call('POST', '', {
      name: 'Letters',
      doubleOptInEnabled: true,
      doubleOptInFrom: 'Letters <hello@sender.example.com>',
      doubleOptInSubject: 'Confirm, please',
      doubleOptInContent: '<p>Click <a href="{{doubleOptInUrl}}">here</a></p>',
    })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({
      doubleOptInEnabled: true,
      doubleOptInFrom: 'Letters <hello@sender.example.com>',
      doubleOptInSubject: 'Confirm, please',
      doubleOptInContent: '<p>Click <a href="{{doubleOptInUrl}}">here</a></p>',
    })
    expect((await call('GET', `/${created.body.id}`)).body).toEqual(created.body)
    const updated = await call('PATCH', `/${created.body.id}`, { doubleOptInFrom: 'news@sender.example.com', doubleOptInSubject: 'Yes?' })
    expect(updated.body).toMatchObject({ doubleOptInEnabled: true, doubleOptInFrom: 'news@sender.example.com', doubleOptInSubject: 'Yes?' })
    // Back to the default sender: refused while the project has none.
    const toDefault = await call('PATCH', `/${created.body.id}`, { doubleOptInFrom: null })
    expect({ status: toDefault.status, field: fieldOf(toDefault)?.field }).toEqual({ status: 422, field: 'doubleOptInFrom' })
    const off = await call('PATCH', `/${created.body.id}`, { doubleOptInEnabled: false, doubleOptInContent: 'no link needed while off' })
    expect(off.body).toMatchObject({ doubleOptInEnabled: false, doubleOptInContent: 'no link needed while off' })
  })

  test.skipIf(NO_PEER_DOCUMENTS)(`a book with its double opt-in settings conforms to useSend's schemas ${NEEDS_PEER_DOCUMENTS}`, async () => {
    const created = await call('POST', '', { name: 'Peer', doubleOptInEnabled: true, doubleOptInFrom: 'hello@sender.example.com' })
    expect(schemaErrors(useSendResponse('/v1/contactBooks', 'post'), created.body)).toEqual([])
    expect(schemaErrors(useSendResponse('/v1/contactBooks/{contactBookId}'), (await call('GET', `/${created.body.id}`)).body)).toEqual([])
    expect(schemaErrors(useSendResponse('/v1/contactBooks'), (await call('GET', '')).body)).toEqual([])
  })

  test("enabled with the default subject and content, from the project's default sender; refused while the project has none", async () => {
    const refused = await call('POST', '', { name: 'Defaults', doubleOptInEnabled: true })
    expect({ status: refused.status, field: fieldOf(refused)?.field }).toEqual({ status: 422, field: 'doubleOptInFrom' })
    expect(fieldOf(refused).message).toContain('no default sender')
    expect((await w.t.request('PATCH', '/api/v1/project', { key: w.key, body: { defaultSender: 'news@sender.example.com' } })).status).toBe(200)
    const created = await call('POST', '', { name: 'Defaults', doubleOptInEnabled: true })
    expect(created.status).toBe(200)
    expect(created.body).toMatchObject({ doubleOptInEnabled: true, doubleOptInFrom: null, doubleOptInSubject: 'Please confirm your subscription' })
    expect(created.body.doubleOptInContent).toContain('{{doubleOptInUrl}}')
    await call('POST', `/${created.body.id}/contacts`, { email: 'hal@example.net' })
    const [mail] = await confirmationsTo('hal@example.net')
    expect(mail).toMatchObject({ subject: 'Please confirm your subscription', from: expect.stringContaining('news@sender.example.com'), link: expect.stringContaining('/confirm/') })
  })

  test('content without {{doubleOptInUrl}} is a 422 naming the field while enabled', async () => {
    const refused = await call('POST', '', { name: 'No link', doubleOptInEnabled: true, doubleOptInContent: '<p>Welcome</p>' })
    expect(refused.status).toBe(422)
    expect(fieldOf(refused).field).toBe('doubleOptInContent')
    expect(refused.body.message).toMatch(/doubleOptInContent.*must contain \{\{doubleOptInUrl\}\}/)
    const off = (await call('POST', '', { name: 'Off', doubleOptInContent: '<p>Welcome</p>' })).body
    const enabling = await call('PATCH', `/${off.id}`, { doubleOptInEnabled: true })
    expect(enabling.status).toBe(422)
    expect(fieldOf(enabling).field).toBe('doubleOptInContent')
    expect((await call('GET', `/${off.id}`)).body.doubleOptInEnabled).toBe(false)
  })

  test('a sender off the verified domains, or not an address, is a 422 naming doubleOptInFrom', async () => {
    for (const from of ['news@elsewhere.example.org', 'not an address']) {
      const refused = await call('POST', '', { name: 'Elsewhere', doubleOptInEnabled: true, doubleOptInFrom: from })
      expect({ from, status: refused.status, field: fieldOf(refused)?.field }).toEqual({ from, status: 422, field: 'doubleOptInFrom' })
    }
    const subject = await call('POST', '', { name: 'Blank', doubleOptInSubject: ' ' })
    expect({ status: subject.status, field: fieldOf(subject)?.field }).toEqual({ status: 422, field: 'doubleOptInSubject' })
  })
})

const leaves = (part: MimePart): MimePart[] => (part.parts.length > 0 ? part.parts.flatMap(leaves) : [part])

/** The messages the fake MX took for `to`, with their subject and the confirmation link in them. */
async function confirmationsTo(to: string) {
  await w.deliver()
  return w.mx.received
    .filter((m) => m.to.includes(to))
    .map((m) => {
      const mime = parseMime(m.raw.toString('latin1'))
      const body = leaves(mime).map((p) => p.content.toString('utf8')).join('\n')
      return { subject: mime.headers.subject, from: mime.headers.from, link: /https?:\/\/[^\s"'<>]+\/confirm\/[a-z0-9-]+/.exec(body)?.[0] }
    })
}

const pathOf = (link: string) => new URL(link).pathname
const page = (method: string, path: string, headers: Record<string, string> = {}) => w.t.request(method, path, { headers })
const listed = async (bookId: string) => (await call('GET', `/${bookId}/contacts`)).body.map((c: any) => c.email)

async function optInBook(name: string) {
  const created = await call('POST', '', { name, doubleOptInEnabled: true, doubleOptInFrom: 'Letters <hello@sender.example.com>', doubleOptInSubject: `Confirm ${name}` })
  expect(created.status).toBe(200)
  return created.body
}

describe('contact books: double opt-in', () => {
  test('an added contact is pending and mailed a link; the link shows a button, and pressing it lists the contact', async () => {
    const book = await optInBook('Weekly')
    const added = await call('POST', `/${book.id}/contacts`, { email: 'ada@example.net', firstName: 'Ada' })
    expect(added.status).toBe(200)
    expect(await listed(book.id)).toEqual([])
    expect((await call('GET', `/${book.id}`)).body.contactCount).toBe(0)

    const [mail, ...more] = await confirmationsTo('ada@example.net')
    expect(more).toEqual([])
    expect(mail).toMatchObject({ subject: 'Confirm Weekly', from: expect.stringContaining('hello@sender.example.com') })
    expect(mail!.link).toMatch(/^https?:\/\//)

    // Opening the link (or a scanner fetching it) changes nothing.
    const shown = await page('GET', pathOf(mail!.link!))
    expect(shown.status).toBe(200)
    expect(shown.body).toContain('Confirm my subscription')
    expect(await listed(book.id)).toEqual([])

    const confirmed = await page('POST', pathOf(mail!.link!), { 'user-agent': 'TestBrowser/1.0' })
    expect(confirmed.status).toBe(200)
    expect(confirmed.body).toContain('Your subscription is confirmed')
    expect(await listed(book.id)).toEqual(['ada@example.net'])

    // Used: the page says so and nothing changes; adding again sends nothing more.
    const again = await page('POST', pathOf(mail!.link!))
    expect(again.body).toContain('Your subscription is confirmed')
    expect((await call('POST', `/${book.id}/contacts`, { email: 'ada@example.net' })).status).toBe(200)
    expect(await confirmationsTo('ada@example.net')).toHaveLength(1)
  })

  test('bulk add makes each contact pending with its own link; adding a pending one again sends no second mail', async () => {
    const book = await optInBook('Bulk')
    const added = await call('POST', `/${book.id}/contacts/bulk`, [{ email: 'bea@example.net' }, { email: 'cy@example.net' }])
    expect(added.status).toBe(200)
    await call('POST', `/${book.id}/contacts`, { email: 'bea@example.net' })
    const [bea] = await confirmationsTo('bea@example.net')
    const [cy] = await confirmationsTo('cy@example.net')
    expect(await confirmationsTo('bea@example.net')).toHaveLength(1)
    expect(bea!.link).not.toBe(cy!.link)
    expect(await listed(book.id)).toEqual([])
    await page('POST', pathOf(cy!.link!))
    expect(await listed(book.id)).toEqual(['cy@example.net'])
  })

  test('a tampered link and a link older than 7 days get their page and change nothing', async () => {
    const book = await optInBook('Expiring')
    await call('POST', `/${book.id}/contacts`, { email: 'dee@example.net' })
    const [mail] = await confirmationsTo('dee@example.net')
    const path = pathOf(mail!.link!)
    const tampered = path.slice(0, -1) + (path.endsWith('a') ? 'b' : 'a')
    for (const method of ['GET', 'POST']) {
      const answer = await page(method, tampered)
      expect({ method, status: answer.status, invalid: answer.body.includes('This link is not valid') }).toEqual({ method, status: 404, invalid: true })
    }
    expect(await listed(book.id)).toEqual([])

    clock.advance(7 * 24 * 3600_000)
    for (const method of ['GET', 'POST']) {
      const answer = await page(method, path)
      expect({ method, status: answer.status, expired: answer.body.includes('This link has expired') }).toEqual({ method, status: 410, expired: true })
    }
    expect(await listed(book.id)).toEqual([])
    // Asked again after the link's life: a new mail, whose link works.
    await call('POST', `/${book.id}/contacts`, { email: 'dee@example.net' })
    const mails = await confirmationsTo('dee@example.net')
    expect(mails).toHaveLength(2)
    expect((await page('POST', pathOf(mails[1]!.link!))).status).toBe(200)
    expect(await listed(book.id)).toEqual(['dee@example.net'])
  })

  test('a book without double opt-in lists added contacts at once and mails nobody', async () => {
    const book = (await call('POST', '', { name: 'Plain' })).body
    await call('POST', `/${book.id}/contacts`, { email: 'eve@example.net' })
    expect(await listed(book.id)).toEqual(['eve@example.net'])
    expect(await confirmationsTo('eve@example.net')).toEqual([])
  })
})

describe('contact books: consent', () => {
  test('following the link records when, how, from which client and what was agreed to; the book contact shows it', async () => {
    const book = await optInBook('Consent')
    const contactId = (await call('POST', `/${book.id}/contacts`, { email: 'fay@example.net' })).body.contactId
    const [mail] = await confirmationsTo('fay@example.net')
    // Over a real socket, so that the client's address is the peer's.
    await w.t.app.start()
    const pressed = await fetch(`${w.t.app.url}${pathOf(mail!.link!)}`, { method: 'POST', headers: { 'user-agent': 'ConsentBrowser/2.0' } })
    expect(pressed.status).toBe(200)
    expect(await pressed.text()).toContain('Your subscription is confirmed')
    const contact = await call('GET', `/${book.id}/contacts/${contactId}`)
    expect(contact.body.consent).toEqual({
      confirmedAt: new Date(clock.now()).toISOString(),
      method: 'confirmation',
      clientIp: '127.0.0.1',
      userAgent: 'ConsentBrowser/2.0',
      agreedTo: { book: 'Consent', subject: 'Confirm Consent', via: 'api' },
    })
    // Pressing it again records nothing new.
    clock.advance(60_000)
    await fetch(`${w.t.app.url}${pathOf(mail!.link!)}`, { method: 'POST', headers: { 'user-agent': 'Other/1.0' } })
    expect((await call('GET', `/${book.id}/contacts/${contactId}`)).body.consent.userAgent).toBe('ConsentBrowser/2.0')
  })

  test('a contact added to a book without double opt-in: the consent says the API listed it, when and from which client', async () => {
    const book = (await call('POST', '', { name: 'Straight in' })).body
    const added = await w.t.request('POST', `${BASE}/${book.id}/contacts`, { key: w.key, body: { email: 'gus@example.net' }, headers: { 'user-agent': 'app-server/1.0' } })
    const contactId = added.body.contactId
    expect((await call('GET', `/${book.id}/contacts/${contactId}`)).body.consent).toEqual({
      confirmedAt: new Date(clock.now()).toISOString(),
      method: 'api',
      clientIp: null,
      userAgent: 'app-server/1.0',
      agreedTo: { book: 'Straight in', subject: null, via: 'api' },
    })
    // Added again: already listed, so the first consent stands.
    clock.advance(1000)
    await call('POST', `/${book.id}/contacts`, { email: 'gus@example.net' })
    expect((await call('GET', `/${book.id}/contacts/${contactId}`)).body.consent.confirmedAt).toBe(new Date(clock.now() - 1000).toISOString())
  })
})

describe('contact books: pending contacts', () => {
  test('are listed with their expiry until they confirm; an expired one says so', async () => {
    const book = await optInBook('Pending')
    await call('POST', `/${book.id}/contacts/bulk`, [{ email: 'p1@example.net' }, { email: 'p2@example.net' }])
    const pending = await call('GET', `/${book.id}/pending`)
    expect(pending.status).toBe(200)
    expect(pending.body.total).toBe(2)
    expect(pending.body.data.map((p: any) => p.email).sort()).toEqual(['p1@example.net', 'p2@example.net'])
    expect(pending.body.data[0]).toMatchObject({
      requestedAt: new Date(clock.now()).toISOString(),
      expiresAt: new Date(clock.now() + 7 * 24 * 3600_000).toISOString(),
      expired: false,
      emailId: expect.any(String),
    })
    const [first] = await confirmationsTo('p1@example.net')
    await page('POST', pathOf(first!.link!))
    expect((await call('GET', `/${book.id}/pending`)).body.data.map((p: any) => p.email)).toEqual(['p2@example.net'])
    clock.advance(7 * 24 * 3600_000)
    expect((await call('GET', `/${book.id}/pending`)).body.data).toEqual([expect.objectContaining({ email: 'p2@example.net', expired: true })])
  })

  test('are sent a new link on request, at most once a minute; the new link lists them', async () => {
    const book = await optInBook('Resend')
    const contactId = (await call('POST', `/${book.id}/contacts`, { email: 'again@example.net' })).body.contactId
    const tooSoon = await call('POST', `/${book.id}/contacts/${contactId}/confirmation`)
    expect(tooSoon.status).toBe(429)
    expect(Number(tooSoon.headers.get('retry-after'))).toBeGreaterThan(0)
    clock.advance(61_000)
    const resent = await call('POST', `/${book.id}/contacts/${contactId}/confirmation`)
    expect(resent).toMatchObject({ status: 202, body: { contactId, expiresAt: new Date(clock.now() + 7 * 24 * 3600_000).toISOString() } })
    const links = await confirmationsTo('again@example.net')
    expect(links).toHaveLength(2)
    expect(links[1]!.link).not.toBe(links[0]!.link)
    await page('POST', pathOf(links[1]!.link!))
    expect(await listed(book.id)).toEqual(['again@example.net'])
    clock.advance(61_000)
    expect((await call('POST', `/${book.id}/contacts/${contactId}/confirmation`)).status).toBe(409)
  })

  test('a re-send for a contact never asked, of another book or unknown is a 404', async () => {
    const book = await optInBook('Resend 404')
    const plain = (await call('POST', '', { name: 'Plain' })).body
    const contactId = (await call('POST', `/${plain.id}/contacts`, { email: 'never@example.net' })).body.contactId
    expect((await call('POST', `/${book.id}/contacts/${contactId}/confirmation`)).status).toBe(404)
    expect((await call('POST', `/${book.id}/contacts/01900000-0000-7000-8000-000000000000/confirmation`)).status).toBe(404)
    expect((await call('GET', `/01900000-0000-7000-8000-000000000000/pending`)).status).toBe(404)
  })
})

describe('contact books: double opt-in from the contacts bulk action', () => {
  test('adding a filter of contacts to the book sends each its confirmation; none is listed until it confirms', async () => {
    const book = await optInBook('Bulk pending')
    for (const email of ['bulk-a@example.net', 'bulk-b@example.net', 'other@example.net']) {
      await w.t.request('POST', '/contacts', { key: w.key, body: { email, data: { source: email.startsWith('bulk') ? 'fair' : 'web' } } })
    }
    const filter = { condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.source', operator: 'equals', value: 'fair' }] }] } }
    const added = await w.t.request('POST', '/contacts/bulk', { key: w.key, body: { action: 'addToBook', bookId: book.id, filter } })
    expect(added.body).toEqual({ action: 'addToBook', changed: 2, selected: 2 })
    expect(await listed(book.id)).toEqual([])
    expect((await call('GET', `/${book.id}/pending`)).body.data.map((p: any) => p.email).sort()).toEqual(['bulk-a@example.net', 'bulk-b@example.net'])
    const [mail] = await confirmationsTo('bulk-a@example.net')
    await page('POST', pathOf(mail!.link!))
    expect(await listed(book.id)).toEqual(['bulk-a@example.net'])
  })
})
