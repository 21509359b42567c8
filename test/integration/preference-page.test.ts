// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { unsubscribeLinks } from '../../src/core/tracking/unsubscribe-links.ts'
import { SECRET } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

/*
 * The unsubscribe link opens a preference page: the project's name in its colour, the contact
 * books the recipient is on as checkboxes (leave one, join another), and unsubscribing from
 * everything. RFC 8058's one-click POST is the unsubscribe test's (unsubscribe.test.ts).
 */

const BASE = 'https://mail.example.org'
let w: World
let books: Record<string, string>

beforeAll(async () => {
  w = await createWorld({ settings: { 'public-url': BASE } })
  books = {}
  for (const name of ['Weekly digest', 'Product news', 'Events']) {
    books[name] = (await w.t.request('POST', '/api/v1/contactBooks', { key: w.key, body: { name } })).body.id
  }
})

afterAll(() => w.close())

const FORM = { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Thunderbird/140' }

/** A contact on the weekly digest, an email sent to it, and its page's address. */
async function reader() {
  const to = `reader-${Bun.randomUUIDv7()}@example.net`
  const added = await w.t.request('POST', `/api/v1/contactBooks/${books['Weekly digest']}/contacts`, { key: w.key, body: { email: to } })
  const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { to, from: 'ada@sender.example.com', subject: 'Digest', html: '<p>Digest</p>' } })
  const links = unsubscribeLinks({ secret: SECRET, baseUrl: BASE, emailId: sent.body.emailId, mailDomain: 'mst.sender.example.com' })
  return { to, contactId: added.body.contactId as string, path: new URL(links.url).pathname }
}

const checkboxes = (html: string) =>
  [...html.matchAll(/<input name="book-([^"]+)" type="checkbox" value="on"( checked)?> ([^<]+)<\/label>/g)].map((m) => ({ id: m[1], checked: Boolean(m[2]), name: m[3] }))
const forms = (html: string, path: string) => [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => new URL(m[1]!, `${BASE}${path}`).pathname)
const bookNames = async (contactId: string) => {
  const names: string[] = []
  for (const [name, id] of Object.entries(books)) {
    if ((await w.t.request('GET', `/api/v1/contactBooks/${id}/contacts/${contactId}`, { key: w.key })).status === 200) names.push(name)
  }
  return names.sort()
}

describe('the preference page', () => {
  test("shows the project's name in its colour and every book, those the reader is on checked; GET changes nothing", async () => {
    expect((await w.t.request('PATCH', '/api/v1/project', { key: w.key, body: { brandColor: '#0E7490' } })).body.brandColor).toBe('#0e7490')
    const { to, contactId, path } = await reader()
    const page = await w.t.request('GET', path)
    expect(page.status).toBe(200)
    expect(page.body).toContain('--accent: #0e7490')
    expect(page.body).toContain('<p class="project">Sender</p><h1>Email preferences</h1>')
    expect(page.body).toContain(`${to} gets emails from Sender.`)
    expect(checkboxes(page.body)).toEqual([
      { id: books['Events'], checked: false, name: 'Events' },
      { id: books['Product news'], checked: false, name: 'Product news' },
      { id: books['Weekly digest'], checked: true, name: 'Weekly digest' },
    ])
    expect(forms(page.body, path)).toEqual([`${path}/preferences`, path])
    expect(page.body).toContain('Unsubscribe from everything')
    expect(await bookNames(contactId)).toEqual(['Weekly digest'])
  })

  test('saving leaves the books unchecked and joins those checked, with a consent; the reader stays subscribed', async () => {
    const { contactId, path } = await reader()
    const saved = await w.t.request('POST', `${path}/preferences`, { raw: `book-${books['Product news']}=on&book-${books['Events']}=on`, headers: FORM })
    expect(saved.status).toBe(200)
    expect(saved.body).toContain('Your preferences are saved.')
    expect(await bookNames(contactId)).toEqual(['Events', 'Product news'])
    expect(checkboxes(saved.body).filter((c) => c.checked).map((c) => c.name)).toEqual(['Events', 'Product news'])
    // The answer's forms still reach the same addresses.
    expect(forms(saved.body, `${path}/preferences`)).toEqual([`${path}/preferences`, path])
    const consent = (await w.t.request('GET', `/api/v1/contactBooks/${books['Events']}/contacts/${contactId}`, { key: w.key })).body.consent
    expect(consent).toMatchObject({ method: 'preferences', userAgent: 'Thunderbird/140', agreedTo: { book: 'Events', via: 'preferences' } })
    expect((await w.t.request('GET', `/contacts/${contactId}`, { key: w.key })).body.subscribed).toBe(true)
  })

  test('nothing checked leaves every book; unsubscribing from everything still works from the same page', async () => {
    const { contactId, path } = await reader()
    expect((await w.t.request('POST', `${path}/preferences`, { raw: '', headers: FORM })).status).toBe(200)
    expect(await bookNames(contactId)).toEqual([])
    const done = await w.t.request('POST', path, { raw: '', headers: FORM })
    expect(done.body).toContain('You are unsubscribed')
    expect((await w.t.request('GET', `/contacts/${contactId}`, { key: w.key })).body.subscribed).toBe(false)
  })

  test('a field that is not a book is refused, a book of another project is passed over, a forged link is 404', async () => {
    const { contactId, path } = await reader()
    expect((await w.t.request('POST', `${path}/preferences`, { raw: 'subscribed=off', headers: FORM })).status).toBe(422)
    const other = await w.t.project('Other')
    const foreign = (await w.t.request('POST', '/api/v1/contactBooks', { key: other.secretKey, body: { name: 'Foreign' } })).body.id
    await w.t.request('POST', `${path}/preferences`, { raw: `book-${foreign}=on&book-${books['Weekly digest']}=on`, headers: FORM })
    expect(await bookNames(contactId)).toEqual(['Weekly digest'])
    expect((await w.t.request('GET', `/api/v1/contactBooks/${foreign}/contacts?limit=10`, { key: other.secretKey })).body).toEqual([])
    expect((await w.t.request('POST', '/unsubscribe/forged-token/preferences', { raw: '', headers: FORM })).status).toBe(404)
  })

  test('a colour that is not #rrggbb is refused', async () => {
    const refused = await w.t.request('PATCH', '/api/v1/project', { key: w.key, body: { brandColor: 'red' } })
    expect(refused.status).toBe(422)
    expect(refused.body.errors[0].field).toBe('brandColor')
  })
})
