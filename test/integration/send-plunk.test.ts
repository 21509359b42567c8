// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cli } from '../helpers/cli.ts'
import { publishRecords } from '../helpers/domains.ts'
import { addUnverifiedDomain, cliFlags, emailOf, receivedBy, rowCounts, textOf } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'

checkAnswersAgainstDocument()

let w: World
let otherTemplateId: string

beforeAll(async () => {
  w = await createWorld()
  await addUnverifiedDomain(w, 'unverified.example.com')
  // Another project owns a verified domain of its own, and a template.
  const other = await w.t.project('Other')
  const domain = await w.t.request('POST', '/api/v1/domains', { key: other.secretKey, body: { name: 'other.example.org', region: 'us-east-1' } })
  publishRecords(w.dns, domain.body.dnsRecords)
  await w.t.app.checker.check(domain.body.id)
  const template = await w.t.request('POST', '/templates', { key: other.secretKey, body: { name: 'Theirs', subject: 'Theirs', body: '<p>Theirs</p>' } })
  otherTemplateId = template.body.id
})

afterAll(() => w.close())

const FROM = 'ada@sender.example.com'
const send = (fields: Record<string, unknown>) => w.t.request('POST', '/v1/send', { key: w.key, body: { from: FROM, subject: 'Hello', body: '<p>Hi</p>', ...fields } })
const contact = async (id: string) => (await w.t.request('GET', `/contacts/${id}`, { key: w.key })).body

describe('POST /v1/send', () => {
  test('one email per recipient, each recipient a contact; the answer lists both', async () => {
    const response = await send({ to: ['ann@example.net', { name: 'Ben', email: 'ben@example.net' }, 'Cat <cat@example.net>'], data: { plan: 'pro' } })
    expect(response.status).toBe(200)
    expect(response.body).toEqual({
      success: true,
      data: {
        emails: ['ann@example.net', 'ben@example.net', 'cat@example.net'].map((email) => ({ contact: { id: expect.any(String), email }, email: expect.any(String) })),
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    })
    const emails = response.body.data.emails
    expect(new Set(emails.map((e: any) => e.email)).size).toBe(3)
    for (const item of emails) {
      expect((await emailOf(w, item.email)).to).toHaveLength(1)
      expect(await contact(item.contact.id)).toMatchObject({ email: item.contact.email, subscribed: false, data: { plan: 'pro' } })
    }
    await w.deliver()
    expect(receivedBy(w, 'ben@example.net').headers['to']).toBe('Ben <ben@example.net>')
    expect(receivedBy(w, 'cat@example.net').headers['to']).toBe('Cat <cat@example.net>')
  })

  test('new contacts are subscribed when asked; an existing contact keeps its subscription and gets its data merged', async () => {
    const existing = await w.t.request('POST', '/contacts', { key: w.key, body: { email: 'old@example.net', subscribed: true, data: { since: 2020, plan: 'free' } } })
    const response = await send({ to: ['old@example.net', 'new@example.net'], subscribed: true, data: { plan: 'pro' } })
    const [old, fresh] = response.body.data.emails
    expect(old.contact.id).toBe(existing.body.id)
    expect(await contact(old.contact.id)).toMatchObject({ subscribed: true, data: { since: 2020, plan: 'pro' } })
    expect(await contact(fresh.contact.id)).toMatchObject({ subscribed: true, data: { plan: 'pro' } })
    const unsubscribed = await w.t.request('POST', '/contacts', { key: w.key, body: { email: 'out@example.net', subscribed: false } })
    await send({ to: 'out@example.net' })
    expect((await contact(unsubscribed.body.id)).subscribed).toBe(false)
  })

  test.each([
    ['a string', { from: 'ada@sender.example.com' }, 'ada@sender.example.com'],
    ['{name, email}', { from: { name: 'Ada Lovelace', email: 'ada@sender.example.com' } }, 'Ada Lovelace <ada@sender.example.com>'],
    ['a string and a name', { from: 'ada@sender.example.com', name: 'Support' }, 'Support <ada@sender.example.com>'],
    ['{name, email} and a name: the name wins', { from: { name: 'Ada', email: 'ada@sender.example.com' }, name: 'Support' }, 'Support <ada@sender.example.com>'],
  ])('from as %s', async (name, fields, header) => {
    const to = `from-${name.replace(/\W+/g, '-')}@example.net`
    expect((await send({ to, ...fields })).status).toBe(200)
    await w.deliver()
    expect(receivedBy(w, to).headers['from']).toBe(header)
  })

  test('reply and headers reach the message; data fills the body, escaped in HTML', async () => {
    const response = await send({
      to: 'reply@example.net',
      reply: 'help@sender.example.com',
      headers: { 'X-Order': '42' },
      subject: 'Order for {{name}}',
      body: '<p>Hi {{name}}, {{missing ?? "friend"}}</p>',
      data: { name: 'Tom & <Jerry>' },
    })
    expect(response.status).toBe(200)
    await w.deliver()
    const message = receivedBy(w, 'reply@example.net')
    expect(message.headers['reply-to']).toBe('help@sender.example.com')
    expect(message.headers['x-order']).toBe('42')
    expect(message.headers['subject']).toBe('Order for Tom & <Jerry>')
    expect(textOf(message, 'text/html')).toContain('<p>Hi Tom &amp; &lt;Jerry&gt;, friend</p>')
  })

  test('50 recipients are 50 emails', async () => {
    const to = Array.from({ length: 50 }, (_, i) => `fifty${i}@example.net`)
    const response = await send({ to })
    expect(response.status).toBe(200)
    expect(response.body.data.emails).toHaveLength(50)
  })
})

/** A decoded MIME part's text with its CRLF line ends as LF. */
const lf = (text: string | undefined) => text?.replace(/\r\n/g, '\n')

describe('type: markdown', () => {
  test('the body is rendered from Markdown; placeholders, in text and in links, are filled as in HTML; a text part is made', async () => {
    const response = await send({
      to: 'md@example.net',
      type: 'markdown',
      body: '# Hi {{name}}\n\nYour plan is **{{plan}}**. [Manage it]({{data.url}})\n\n- one\n- two',
      data: { name: 'Tom & <Jerry>', plan: 'pro', url: 'https://app.example.com/plan?a=1&b=2' },
    })
    expect(response.status).toBe(200)
    const html =
      '<h1>Hi Tom &amp; &lt;Jerry&gt;</h1>\n<p>Your plan is <strong>pro</strong>. <a href="https://app.example.com/plan?a=1&amp;b=2">Manage it</a></p>\n<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n'
    expect((await emailOf(w, response.body.data.emails[0].email)).html).toBe(html)
    await w.deliver()
    const message = receivedBy(w, 'md@example.net')
    expect(lf(textOf(message, 'text/html'))).toBe(html)
    expect(lf(textOf(message, 'text/plain'))).toContain('Your plan is pro. Manage it [https://app.example.com/plan?a=1&b=2]')
  })

  test('Markdown with raw HTML is sanitised: scripts, frames, handlers and javascript: links are taken out, the formatting and text kept', async () => {
    const markdown =
      'Hello **there**\n\n<div class="note" onclick="steal()">Kept <em>as is</em></div>\n\n<script>alert("x")</script>\n\n' +
      '[bad](javascript:alert(1)) <iframe src="https://evil.example/"></iframe><img src="https://cdn.example.com/a.png" onerror="steal()">\n\nThe end'
    const md = await send({ to: 'md-raw@example.net', type: 'markdown', body: markdown })
    expect(md.status).toBe(200)
    const safe = '<p>Hello <strong>there</strong></p>\n<div class="note">Kept <em>as is</em></div><p><a>bad</a> <img src="https://cdn.example.com/a.png" /></p>\n<p>The end</p>\n'
    expect((await emailOf(w, md.body.data.emails[0].email)).html).toBe(safe)
    await w.deliver()
    const message = receivedBy(w, 'md-raw@example.net')
    const sentHtml = lf(textOf(message, 'text/html'))!
    for (const gone of ['<script', 'alert(', 'onclick', 'onerror', '<iframe', 'javascript:']) expect(sentHtml).not.toContain(gone)
    expect(lf(textOf(message, 'text/plain'))).toBe('Hello there\n\nKept as is\n\nbad\n\nThe end')
  })

  test('an HTML body is sent as given, as Plunk sends it: the sender\'s own markup, conditional comments and all', async () => {
    const html = '<!--[if mso]><table><tr><td><![endif]--><p style="color:red">Hi</p><!--[if mso]></td></tr></table><![endif]-->'
    const sent = await send({ to: 'html-raw@example.net', type: 'html', body: html })
    expect((await emailOf(w, sent.body.data.emails[0].email)).html).toBe(html)
  })

  test('a template keeps its HTML body whatever type says; a body given with it is Markdown', async () => {
    const template = await w.t.request('POST', '/templates', { key: w.key, body: { name: 'T', subject: 'T', body: '<p># not a heading</p>', type: 'TRANSACTIONAL' } })
    const own = await send({ to: 'md-template@example.net', subject: undefined, body: undefined, template: template.body.id, type: 'markdown' })
    expect((await emailOf(w, own.body.data.emails[0].email)).html).toBe('<p># not a heading</p>')
    const overridden = await send({ to: 'md-template@example.net', body: '# a heading', template: template.body.id, type: 'markdown' })
    expect((await emailOf(w, overridden.body.data.emails[0].email)).html).toBe('<h1>a heading</h1>\n')
  })

  test('a type that is neither html nor markdown is a 422 naming type and its values', async () => {
    const response = await send({ to: 'md-bad@example.net', type: 'text' })
    expect(response.status).toBe(422)
    expect(response.body.errors).toEqual([{ field: 'type', message: 'Choose one of these for type: html, markdown.', code: 'invalid_enum_value' }])
    expect(response.body.message).toBe('Choose one of these for type: html, markdown.')
  })
})

describe('the default sender', () => {
  test('without from: a 422 until the project has a default sender, then that sender', async () => {
    const refused = await send({ to: 'default@example.net', from: undefined })
    expect(refused).toMatchObject({ status: 422, body: { errors: [{ field: 'from' }] } })
    expect(refused.body.message).toContain('mailstead project set-sender')

    const set = await cli(['project', 'set-sender', String(w.projectId), 'news@sender.example.com', ...cliFlags(w)])
    expect(set).toMatchObject({ code: 0, out: `Project ${w.projectId} default sender: news@sender.example.com` })
    expect((await send({ to: 'default@example.net', from: undefined })).status).toBe(200)
    await w.deliver()
    expect(receivedBy(w, 'default@example.net').headers['from']).toBe('news@sender.example.com')

    await cli(['project', 'set-sender', String(w.projectId), 'news@unverified.example.com', ...cliFlags(w)])
    expect((await send({ to: 'default@example.net', from: undefined })).status).toBe(403)

    expect((await cli(['project', 'set-sender', String(w.projectId), 'none', ...cliFlags(w)])).out).toBe(`Project ${w.projectId} default sender: none`)
    expect((await send({ to: 'default@example.net', from: undefined })).status).toBe(422)
  })

  test('name gives the default sender a display name, as it does a given from', async () => {
    await cli(['project', 'set-sender', String(w.projectId), 'news@sender.example.com', ...cliFlags(w)])
    const named = await send({ to: 'named-default@example.net', from: undefined, name: 'News' })
    await cli(['project', 'set-sender', String(w.projectId), 'none', ...cliFlags(w)])
    expect(named.status).toBe(200)
    expect((await emailOf(w, named.body.data.emails[0].email)).from).toBe('"News" <news@sender.example.com>')
  })

  test('set-sender refuses a malformed address and an unknown project', async () => {
    expect(await cli(['project', 'set-sender', String(w.projectId), 'not an address', ...cliFlags(w)])).toMatchObject({ code: 1, err: expect.stringContaining('ADDRESS') })
    expect(await cli(['project', 'set-sender', '9999', 'a@sender.example.com', ...cliFlags(w)])).toMatchObject({ code: 1, err: expect.stringContaining('Project 9999 not found') })
  })
})

describe('a from domain that is not a verified domain of the project is a 403', () => {
  test.each([
    ['never added', 'ada@nowhere.example.org', 'Add nowhere.example.org as a sending domain'],
    ['added but not verified', 'ada@unverified.example.com', 'unverified.example.com is NOT_STARTED'],
    ['verified by another project', 'ada@other.example.org', 'Add other.example.org as a sending domain'],
  ])('%s', async (_, from, suggestion) => {
    const before = await rowCounts(w)
    const response = await send({ to: 'x@example.net', from })
    expect(response).toMatchObject({ status: 403, body: { code: 'DOMAIN_NOT_VERIFIED', suggestion: expect.stringContaining(suggestion) } })
    expect(await rowCounts(w)).toEqual(before)
  })
})

const attachment = { filename: 'a.txt', content: Buffer.from('a').toString('base64') }

describe('bad input is refused and nothing is queued', () => {
  test.each<[string, Record<string, unknown>]>([
    ['51 recipients', { to: Array.from({ length: 51 }, (_, i) => `r${i}@example.net`) }],
    ['no recipients', { to: [] }],
    ['a malformed to', { to: 'not-an-email' }],
    ['a malformed {email}', { to: { name: 'X', email: 'x@@example.net' } }],
    ['one malformed recipient among good ones', { to: ['a@example.net', 'b@example.net', 'c@'] }],
    ['a to with a space in it', { to: 'jane doe@example.net' }],
    ['a to with a line break and a Bcc header', { to: 'jane@example.net\r\nBcc: thief@example.net' }],
    ['a malformed from', { from: 'ada@' }],
    ['a malformed reply', { reply: 'help at example.net' }],
    ['a header value with CR LF', { to: 'x@example.net', headers: { 'X-A': 'a\r\nBcc: thief@example.net' } }],
    ['a header name with LF', { to: 'x@example.net', headers: { 'X-A\nBcc': 'thief@example.net' } }],
    ['a subject with a line break', { to: 'x@example.net', subject: 'Hi\nBcc: thief@example.net' }],
    ['no subject', { to: 'x@example.net', subject: undefined }],
    ['no body', { to: 'x@example.net', body: undefined }],
    ['attachment content that is not base64', { to: 'x@example.net', attachments: [{ filename: 'a.txt', content: '%%%%' }] }],
    ['11 attachments', { to: 'x@example.net', attachments: Array.from({ length: 11 }, () => attachment) }],
    ['a template of another project', { to: 'x@example.net', subject: undefined, body: undefined, template: 'other' }],
    ['a template that does not exist', { to: 'x@example.net', subject: undefined, body: undefined, template: 'no-such-template' }],
    ['data that is not an object', { to: 'x@example.net', data: 'plan=pro' }],
    ['subscribed that is not a boolean', { to: 'x@example.net', subscribed: 'yes' }],
    ['an unknown field', { to: 'x@example.net', cc: 'y@example.net' }],
    ['an unknown body type', { to: 'x@example.net', type: 'text' }],
    ['a body type in capitals', { to: 'x@example.net', type: 'MARKDOWN' }],
  ])('%s', async (_, fields) => {
    await w.deliver()
    const before = await rowCounts(w)
    const body = fields.template === 'other' ? { ...fields, template: otherTemplateId } : fields
    const response = await send(body)
    expect(response.status).toBe(422)
    expect(response.body).toMatchObject({ success: false, statusCode: 422, errors: [expect.objectContaining({ field: expect.any(String) })] })
    await w.deliver()
    expect(await rowCounts(w)).toEqual(before)
  })

  test('a malformed recipient is named by its place in the list', async () => {
    const response = await send({ to: ['a@example.net', 'b@example.net', { email: 'c@@example.net' }] })
    expect(response.body.errors).toMatchObject([{ field: 'to[2]', message: expect.any(String) }])
  })
})
