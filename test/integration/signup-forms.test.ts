// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { parseMime, type MimePart } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

/*
 * Hosted sign-up forms: made through the API, shown at /f/<id>, posted by a browser from that page
 * (with its signed token) or from a snippet on another site (with the project's public key). A
 * robot's post (the honeypot filled), a flood from one address, forged ids and keys change nothing.
 */

let w: World
let publicKey: string
let bookId: string

beforeAll(async () => {
  w = await createWorld({ settings: { 'form-rate-limit-per-address-per-minute': '10' } })
  publicKey = (await w.t.request('POST', '/api/v1/keys', { key: w.key, body: { name: 'Site', type: 'public' } })).body.key
  bookId = (await w.t.request('POST', '/api/v1/contactBooks', { key: w.key, body: { name: 'Newsletter' } })).body.id
})

afterAll(() => w.close())

const api = (method: string, path: string, body?: unknown) => w.t.request(method, `/api/v1/forms${path}`, { key: w.key, body })
const fieldOf = (response: { body: any }) => response.body.errors?.[0]?.field

async function newForm(body: Record<string, unknown> = {}) {
  const created = await api('POST', '', { name: 'Footer', contactBookId: bookId, fields: [{ key: 'firstName', label: 'First name', required: true }, { key: 'company', label: 'Company', required: false }], ...body })
  expect(created.status).toBe(201)
  return created.body
}

/** A browser's post of a form: urlencoded, answered with a page. */
const post = (formId: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  w.t.request('POST', `/f/${formId}`, { raw: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Firefox/140', ...headers } })

/** The hosted page, and the token its form carries. */
async function hosted(formId: string) {
  const page = await w.t.request('GET', `/f/${formId}`)
  const token = /name="t" value="([^"]+)"/.exec(String(page.body))?.[1]
  return { page, token: token! }
}

const bookContacts = async (id = bookId) => (await w.t.request('GET', `/api/v1/contactBooks/${id}/contacts?limit=100`, { key: w.key })).body as any[]
const contactsNamed = async (search: string) => (await w.t.request('GET', `/contacts?search=${encodeURIComponent(search)}`, { key: w.key })).body.contacts as any[]

describe('sign-up forms through the API', () => {
  test('are made for a book with their fields and words, and answer their hosted address and snippet', async () => {
    const form = await newForm({ title: 'Join the newsletter', buttonLabel: 'Join' })
    expect(form).toMatchObject({
      name: 'Footer',
      contactBookId: bookId,
      listName: 'Newsletter',
      doubleOptIn: false,
      fields: [{ key: 'firstName', label: 'First name', required: true }, { key: 'company', label: 'Company', required: false }],
      title: 'Join the newsletter',
      buttonLabel: 'Join',
      redirectUrl: null,
      enabled: true,
    })
    expect(form.hostedUrl).toEndWith(`/f/${form.id}`)
    expect(form.embedHtml).toContain(`action="${form.hostedUrl}"`)
    expect(form.embedHtml).toContain('name="key" value="pk_YOUR_PUBLIC_KEY"')
    expect(form.embedHtml).toContain('name="website"')
    expect((await api('GET', `/${form.id}`)).body).toEqual(form)
    expect((await api('GET', '')).body.data.map((f: any) => f.id)).toContain(form.id)
    const changed = await api('PATCH', `/${form.id}`, { successMessage: 'Welcome!', enabled: false })
    expect(changed.body).toMatchObject({ successMessage: 'Welcome!', enabled: false, title: 'Join the newsletter' })
    expect((await api('DELETE', `/${form.id}`)).body).toEqual({ id: form.id, deleted: true })
    expect((await api('GET', `/${form.id}`)).status).toBe(404)
  })

  test.each([
    ['a book that does not exist', { contactBookId: '01900000-0000-7000-8000-000000000000' }, 404, undefined],
    ['a field named like the form itself', { fields: [{ key: 'email', label: 'Email', required: true }] }, 422, 'fields[0].key'],
    ['a field key with spaces', { fields: [{ key: 'first name', label: 'x', required: true }] }, 422, 'fields[0].key'],
    ['a field asked twice', { fields: [{ key: 'a', label: 'A', required: true }, { key: 'a', label: 'B', required: false }] }, 422, 'fields[1].key'],
    ['a redirect that is not http', { redirectUrl: 'javascript:alert(1)' }, 422, 'redirectUrl'],
    ['an empty title', { title: '  ' }, 422, 'title'],
  ] as const)('%s is refused', async (_, body, status, field) => {
    const refused = await api('POST', '', { name: 'Bad', contactBookId: bookId, ...body })
    expect(refused.status).toBe(status)
    if (field) expect(fieldOf(refused)).toBe(field)
  })

  test("a dynamic segment is refused: its members come from its condition", async () => {
    const segment = await w.t.request('POST', '/segments', { key: w.key, body: { name: 'Pros', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] } } })
    const refused = await api('POST', '', { name: 'Bad', contactBookId: segment.body.id })
    expect({ status: refused.status, field: fieldOf(refused) }).toEqual({ status: 422, field: 'contactBookId' })
  })
})

describe('the hosted page and its posts', () => {
  test('the page asks for the address and the fields, with a hidden honeypot and no script', async () => {
    const form = await newForm({ title: 'Join us' })
    const { page, token } = await hosted(form.id)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    const html = String(page.body)
    expect(html).toContain('<h1>Join us</h1>')
    expect(html).toContain('name="email" type="email"')
    expect(html).toContain('name="firstName" type="text"')
    expect(html).toMatch(/class="trap" aria-hidden="true"><label>[^<]*<input name="website"[^>]*tabindex="-1"/)
    expect(html).not.toContain('<script')
    expect(token.length).toBeGreaterThan(20)
  })

  test('posted from the page: the contact is written with its answers, listed, and its consent kept', async () => {
    const form = await newForm({ title: 'Monthly letter' })
    const { token } = await hosted(form.id)
    const answer = await post(form.id, { email: 'Grace@Example.net', firstName: 'Grace', company: 'Navy', website: '', t: token })
    expect(answer.status).toBe(200)
    expect(String(answer.body)).toContain('Thank you for signing up.')
    const [contact] = await contactsNamed('grace@example.net')
    expect(contact).toMatchObject({ email: 'Grace@Example.net', subscribed: true, data: { firstName: 'Grace', company: 'Navy' } })
    expect((await bookContacts()).map((c) => c.id)).toContain(contact.id)
    const listed = await w.t.request('GET', `/api/v1/contactBooks/${bookId}/contacts/${contact.id}`, { key: w.key })
    expect(listed.body.consent).toMatchObject({ method: 'form', userAgent: 'Firefox/140', agreedTo: { book: 'Newsletter', via: 'form', form: 'Monthly letter' } })
  })

  test("posted from a site with the project's public key, asking for JSON", async () => {
    const form = await newForm()
    const answer = await w.t.request('POST', `/f/${form.id}`, { body: { email: 'snippet@example.net', firstName: 'Sam', key: publicKey } })
    expect(answer).toMatchObject({ status: 200, body: { status: 'subscribed' } })
    expect(await contactsNamed('snippet@example.net')).toHaveLength(1)
  })

  test('a redirect sends the browser on with 303', async () => {
    const form = await newForm({ redirectUrl: 'https://site.example/thanks' })
    const { token } = await hosted(form.id)
    const answer = await post(form.id, { email: 'redirected@example.net', firstName: 'Rae', t: token })
    expect(answer.status).toBe(303)
    expect(answer.headers.get('location')).toBe('https://site.example/thanks')
  })

  test('with the book’s double opt-in, the post sends a confirmation; following it lists the contact', async () => {
    const book = (await w.t.request('POST', '/api/v1/contactBooks', { key: w.key, body: { name: 'Confirmed', doubleOptInEnabled: true, doubleOptInFrom: 'hello@sender.example.com' } })).body
    const form = await newForm({ contactBookId: book.id, title: 'Confirmed letters' })
    expect(form.doubleOptIn).toBe(true)
    const { token } = await hosted(form.id)
    const answer = await post(form.id, { email: 'careful@example.net', firstName: 'Cy', t: token })
    expect(String(answer.body)).toContain('Check your inbox')
    expect(await bookContacts(book.id)).toEqual([])
    await w.deliver()
    const raw = w.mx.received.find((m) => m.to.includes('careful@example.net'))!.raw.toString('latin1')
    const body = leaves(parseMime(raw)).map((part) => part.content.toString('utf8')).join('\n')
    const link = /https?:\/\/[^\s"'<>]+\/confirm\/[a-z0-9-]+/.exec(body)![0]
    expect((await w.t.request('POST', new URL(link).pathname, { headers: { 'user-agent': 'Safari/19' } })).status).toBe(200)
    const [listed] = await bookContacts(book.id)
    expect(listed.email).toBe('careful@example.net')
    const consent = (await w.t.request('GET', `/api/v1/contactBooks/${book.id}/contacts/${listed.id}`, { key: w.key })).body.consent
    expect(consent).toMatchObject({ method: 'confirmation', userAgent: 'Safari/19', agreedTo: { book: 'Confirmed', via: 'form', form: 'Confirmed letters' } })
  })
})

describe('bad posts change nothing', () => {
  test('the honeypot filled: answered as a success, nothing written', async () => {
    const form = await newForm()
    const { token } = await hosted(form.id)
    const answer = await post(form.id, { email: 'robot@example.net', firstName: 'Bot', website: 'https://spam.example', t: token })
    expect(answer.status).toBe(200)
    expect(String(answer.body)).toContain('Thank you for signing up.')
    expect(await contactsNamed('robot@example.net')).toEqual([])
  })

  test('a required field missing, or an address that is not one: the page again with why, nothing written', async () => {
    const form = await newForm()
    const { token } = await hosted(form.id)
    const missing = await post(form.id, { email: 'nameless@example.net', t: token })
    expect(missing.status).toBe(422)
    expect(String(missing.body)).toContain('firstName: is required (First name)')
    expect(String(missing.body)).toContain('name="email"')
    const bad = await post(form.id, { email: 'not an address', firstName: 'N', t: token })
    expect(bad.status).toBe(422)
    expect(await contactsNamed('nameless@example.net')).toEqual([])
  })

  test('without a key or the page’s token, with a forged token, a secret key or another project’s key: refused', async () => {
    const form = await newForm()
    const other = await w.t.project('Other')
    const cases: Array<[Record<string, string>, number]> = [
      [{}, 401],
      [{ t: 'forged-token' }, 401],
      [{ key: 'pk_' + 'x'.repeat(43) }, 401],
      [{ key: w.key }, 403],
      [{ key: other.publicKey }, 403],
    ]
    for (const [auth, status] of cases) {
      const refused = await w.t.request('POST', `/f/${form.id}`, { body: { email: 'intruder@example.net', firstName: 'I', ...auth } })
      expect({ auth, status: refused.status }).toEqual({ auth, status })
    }
    expect(await contactsNamed('intruder@example.net')).toEqual([])
  })

  test('a forged form id, or a disabled form: 404', async () => {
    expect((await w.t.request('GET', '/f/01900000-0000-7000-8000-000000000000')).status).toBe(404)
    expect((await w.t.request('GET', '/f/../../etc/passwd')).status).toBe(404)
    const form = await newForm()
    await api('PATCH', `/${form.id}`, { enabled: false })
    expect((await w.t.request('GET', `/f/${form.id}`)).status).toBe(404)
    expect((await post(form.id, { email: 'late@example.net', firstName: 'L' })).status).toBe(404)
  })

  test('1,000 posts in a minute from one address: 10 sign up, the rest are told to wait', async () => {
    const form = await newForm()
    const { token } = await hosted(form.id)
    const statuses: number[] = []
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(form.id, { email: `flood${batch * 50 + i}@example.net`, firstName: 'F', t: token })))
      statuses.push(...answers.map((a) => a.status))
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10)
    expect(statuses.filter((s) => s === 429)).toHaveLength(990)
    expect(await contactsNamed('flood')).toHaveLength(10)
  })
})

function leaves(part: MimePart): MimePart[] {
  return part.parts.length === 0 ? [part] : part.parts.flatMap(leaves)
}
