// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { unsubscribeLinks } from '../../src/core/tracking/unsubscribe-links.ts'
import { asCampaignEmail, campaignCounts } from '../helpers/campaign-row.ts'
import { SECRET } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

const BASE = 'https://mail.example.org'
let w: World
let mxPort: number

beforeAll(async () => {
  w = await createWorld({ started: true, settings: { 'public-url': BASE, 'mx-port': '0' } })
  mxPort = w.t.app.listeners()!.mx.port!
})

afterAll(() => w.close())

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

/** An email to a new subscribed contact (Plunk's send), and the ways to unsubscribe from it. */
async function emailToContact(to = `reader-${Bun.randomUUIDv7()}@example.net`) {
  const sent = await w.t.request('POST', '/v1/send', { key: w.key, body: { to, from: 'ada@sender.example.com', subject: 'News', body: '<p>News</p>', subscribed: true } })
  expect(sent.status).toBe(200)
  const { email: emailId, contact } = sent.body.data.emails[0]
  return { emailId: emailId as string, contactId: contact.id as string, to, ...linksOf(emailId) }
}

function linksOf(emailId: string) {
  const links = unsubscribeLinks({ secret: SECRET, baseUrl: BASE, emailId, mailDomain: 'mst.sender.example.com' })
  return { links, path: new URL(links.url).pathname }
}

const subscribed = async (contactId: string) => (await w.t.request('GET', `/contacts/${contactId}`, { key: w.key })).body.subscribed
const eventsOf = (contactId: string) =>
  w.t.app.db.selectFrom('events').select(['name', 'data']).where('contact_id', '=', contactId).orderBy('id').execute().then((rows) =>
    rows.filter((r) => r.name.startsWith('contact.') && r.name.endsWith('subscribed')).map((r) => ({ name: r.name, data: JSON.parse(r.data ?? 'null') })),
  )
const post = (path: string, raw?: string, headers: Record<string, string> = FORM) => w.t.request('POST', path, { raw, headers })

/** The action of the page's form, resolved against the page's own path, as a browser would. */
const formAction = (page: string, path: string) => new URL(/<form method="post" action="([^"]+)"/.exec(page)![1]!, `${BASE}${path}`).pathname

describe('the unsubscribe page', () => {
  test('GET shows a button and changes nothing: a link scanner unsubscribes no one', async () => {
    const { contactId, to, path } = await emailToContact()
    for (let i = 0; i < 3; i++) {
      const page = await w.t.request('GET', path)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(page.headers.get('cache-control')).toBe('no-store')
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
      expect(page.body).toContain(to)
      expect(page.body).toContain('<button type="submit">Unsubscribe from everything</button>')
      expect(page.body).not.toMatch(/<script|<link|src=/i)
      expect(formAction(page.body, path)).toBe(path)
    }
    expect(await subscribed(contactId)).toBe(true)
    expect(await eventsOf(contactId)).toEqual([])
  })

  test("the page's button unsubscribes once; its answer offers to subscribe again, which works", async () => {
    const { emailId, contactId, path } = await emailToContact()
    const page = await w.t.request('GET', path)
    const done = await post(formAction(page.body, path), '')
    expect(done.status).toBe(200)
    expect(done.body).toContain('You are unsubscribed')
    expect(await subscribed(contactId)).toBe(false)
    await post(formAction(page.body, path), '')
    expect(await eventsOf(contactId)).toEqual([{ name: 'contact.unsubscribed', data: { emailId, source: 'link' } }])
    const again = await w.t.request('GET', path)
    expect(again.body).toContain('You are unsubscribed')
    const resubscribePath = formAction(done.body, path)
    expect(resubscribePath).toBe(`${path}/resubscribe`)
    const back = await post(resubscribePath, '')
    expect(back.status).toBe(200)
    expect(back.body).toContain('You are subscribed again')
    expect(await subscribed(contactId)).toBe(true)
    expect(formAction(back.body, resubscribePath)).toBe(path)
    expect((await eventsOf(contactId)).map((e) => e.name)).toEqual(['contact.unsubscribed', 'contact.subscribed'])
  })

  test('an empty POST with no content type at all is the button too', async () => {
    const { contactId, path } = await emailToContact()
    expect((await w.t.request('POST', path)).status).toBe(200)
    expect(await subscribed(contactId)).toBe(false)
  })
})

describe('one-click unsubscribe (RFC 8058)', () => {
  test('List-Unsubscribe=One-Click as a URL-encoded form unsubscribes, once', async () => {
    const { emailId, contactId, path, links } = await emailToContact()
    expect(links.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click')
    for (let i = 0; i < 2; i++) expect((await post(path, 'List-Unsubscribe=One-Click')).status).toBe(200)
    expect(await subscribed(contactId)).toBe(false)
    expect(await eventsOf(contactId)).toEqual([{ name: 'contact.unsubscribed', data: { emailId, source: 'one-click' } }])
  })

  test('and as multipart/form-data', async () => {
    const { contactId, path } = await emailToContact()
    const form = new FormData()
    form.set('List-Unsubscribe', 'One-Click')
    const encoded = new Response(form)
    const contentType = encoded.headers.get('content-type')!
    const body = await encoded.arrayBuffer()
    const headers = { 'content-type': contentType, 'content-length': String(body.byteLength) }
    const response = await w.t.app.handle(new Request(`http://localhost${path}`, { method: 'POST', headers, body }))
    expect(response.status).toBe(200)
    expect(await subscribed(contactId)).toBe(false)
    expect((await eventsOf(contactId))[0]!.data.source).toBe('one-click')
  })

  test.each([
    ['a JSON body', '{"List-Unsubscribe":"One-Click"}', { 'content-type': 'application/json' }, 415],
    ['another value', 'List-Unsubscribe=Yes', FORM, 422],
    ['another field', 'List-Unsubscribe=One-Click&also=1', FORM, 422],
  ])('%s is refused and changes nothing', async (_, raw, headers, status) => {
    const { contactId, path } = await emailToContact()
    expect((await post(path, raw, headers)).status).toBe(status)
    expect(await subscribed(contactId)).toBe(true)
    expect(await eventsOf(contactId)).toEqual([])
  })

  test('resubscribing takes no one-click field', async () => {
    const { contactId, path } = await emailToContact()
    await post(path, 'List-Unsubscribe=One-Click')
    expect((await post(`${path}/resubscribe`, 'List-Unsubscribe=One-Click')).status).toBe(422)
    expect(await subscribed(contactId)).toBe(false)
  })
})

describe('whom an email unsubscribes', () => {
  test("without a contact on the email, the project's contact with the first To address (named or not)", async () => {
    const to = `named-${Bun.randomUUIDv7()}@example.net`
    const contact = await w.t.request('POST', '/contacts', { key: w.key, body: { email: to.toUpperCase(), subscribed: true } })
    const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to: [`Reader <${to}>`, 'other@example.net'], subject: 'Hi', html: '<p>Hi</p>' } })
    const { path } = linksOf(sent.body.emailId)
    await post(path, 'List-Unsubscribe=One-Click')
    expect(await subscribed(contact.body.id)).toBe(false)
  })

  test('no contact at all: the page still answers, and nothing is created', async () => {
    const to = `stranger-${Bun.randomUUIDv7()}@example.net`
    const sent = await w.t.request('POST', '/api/v1/emails', { key: w.key, body: { from: 'ada@sender.example.com', to, subject: 'Hi', html: '<p>Hi</p>' } })
    const { path } = linksOf(sent.body.emailId)
    expect((await w.t.request('GET', path)).status).toBe(200)
    const done = await post(path, '')
    expect(done.status).toBe(200)
    expect(done.body).toContain('You are unsubscribed')
    expect(await w.t.app.db.selectFrom('contacts').select('id').where('email_key', '=', to).execute()).toEqual([])
  })

  test("a campaign counts the unsubscription once, even unsubscribing again after subscribing again", async () => {
    const { emailId, contactId, path } = await emailToContact()
    const campaignId = await asCampaignEmail(w, emailId, contactId)
    await post(path, '')
    await post(`${path}/resubscribe`, '')
    await post(path, 'List-Unsubscribe=One-Click')
    expect(await subscribed(contactId)).toBe(false)
    expect((await campaignCounts(w, campaignId)).unsubscribed).toBe(1)
    expect((await eventsOf(contactId)).map((e) => e.name)).toEqual(['contact.unsubscribed', 'contact.subscribed', 'contact.unsubscribed'])
  })

  test("the page shows the project's name and the address escaped", async () => {
    const evil = await w.t.project('<b>Evil</b> & "Co"')
    const { emailId } = await emailToContact()
    await w.t.app.writer.run((trx) => trx.updateTable('emails').set({ project_id: evil.id, contact_id: null }).where('id', '=', emailId).execute())
    const page = await w.t.request('GET', linksOf(emailId).path)
    expect(page.body).toContain('&lt;b&gt;Evil&lt;/b&gt; &amp; &quot;Co&quot;')
    expect(page.body).not.toContain('<b>Evil')
  })
})

describe('links that are not ours', () => {
  test.each([
    ['a changed signature', (path: string) => path.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'))],
    ['a changed email id', (path: string) => path.replace('/unsubscribe/0', '/unsubscribe/1')],
    ['no signature', (path: string) => path.slice(0, path.lastIndexOf('-'))],
  ])('%s: GET, POST and resubscribe answer a 404 page and change nothing', async (_, alter) => {
    const { contactId, path } = await emailToContact()
    const bad = alter(path)
    for (const response of [await w.t.request('GET', bad), await post(bad, 'List-Unsubscribe=One-Click'), await post(`${bad}/resubscribe`, '')]) {
      expect(response.status).toBe(404)
      expect(response.body).toContain('This link is not valid')
    }
    expect(await subscribed(contactId)).toBe(true)
    expect(await eventsOf(contactId)).toEqual([])
  })

  test('a well-signed token of an email that is gone is a 404 page', async () => {
    const { path } = linksOf(Bun.randomUUIDv7())
    expect((await w.t.request('GET', path)).status).toBe(404)
    expect((await post(path, '')).status).toBe(404)
  })
})

/** One SMTP session to the MX listener: what a mail client does with the mailto. */
async function mail(to: string, from = 'reader@example.net'): Promise<{ response?: string; responseCode?: number }> {
  const connection = new SMTPConnection({ host: '127.0.0.1', port: mxPort, tls: { rejectUnauthorized: false }, name: 'client.example' } as never)
  connection.on('error', () => {})
  await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
  const message = `From: ${from}\r\nTo: ${to}\r\nSubject: unsubscribe\r\n\r\nThis message was automatically generated by Gmail.\r\n`
  try {
    return await new Promise((resolve) => connection.send({ from, to: [to] }, message, (error, info) => resolve((error as never) ?? info)))
  } finally {
    connection.quit()
  }
}

describe('unsubscribe by mail (the mailto of List-Unsubscribe)', () => {
  test('mail to unsubscribe+<token> unsubscribes the contact, once', async () => {
    const { emailId, contactId, links } = await emailToContact()
    const address = links.mailto.slice('mailto:'.length, links.mailto.indexOf('?'))
    expect((await mail(address)).response).toMatch(/^250/)
    expect(await subscribed(contactId)).toBe(false)
    expect((await mail(address)).response).toMatch(/^250/)
    expect(await eventsOf(contactId)).toEqual([{ name: 'contact.unsubscribed', data: { emailId, source: 'mail' } }])
  })

  test('the address still works after its case was folded on the way', async () => {
    const { contactId, links } = await emailToContact()
    const address = links.mailto.slice('mailto:'.length, links.mailto.indexOf('?')).toUpperCase()
    expect((await mail(address)).response).toMatch(/^250/)
    expect(await subscribed(contactId)).toBe(false)
  })

  test('a tampered token is refused at RCPT: the MX is still no relay', async () => {
    const { contactId, links } = await emailToContact()
    const address = links.mailto.slice('mailto:'.length, links.mailto.indexOf('?')).replace(/[a-z2-7]@/, (m) => (m[0] === 'a' ? 'b@' : 'a@'))
    expect((await mail(address)).responseCode).toBe(550)
    expect(await subscribed(contactId)).toBe(true)
    expect((await mail('unsubscribe+nothing@example.net')).responseCode).toBe(550)
    expect((await mail(`unsubscribe@mst.sender.example.com`)).responseCode).toBe(550)
  })
})
