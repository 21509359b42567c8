// @database
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createTestApp } from '../helpers/app.ts'
import { publishRecords } from '../helpers/domains.ts'
import { addUnverifiedDomain, emailOf, leavesOf, receivedBy, receivedCount, rowCounts, statusesOf, textOf } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'
import { checkAnswersAgainstDocument } from '../helpers/openapi-answers.ts'

checkAnswersAgainstDocument()

let w: World

beforeAll(async () => {
  // bun test runs every file in one process, so another app has usually served GET
  // /api/v1/emails/{id} before this file's app is built: do the same here, whatever the file order.
  const earlier = await createTestApp()
  await earlier.request('GET', '/api/v1/emails/no-such-email', { key: (await earlier.project()).secretKey })
  await earlier.close()
  w = await createWorld()
  await addUnverifiedDomain(w, 'unverified.example.com')
})

afterAll(() => w.close())

const FROM = 'Ada <ada@sender.example.com>'
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => w.t.request('POST', path, { key: w.key, body, headers })
const send = (fields: Record<string, unknown>) => post('/api/v1/emails', { from: FROM, subject: 'Hello', html: '<p>Hi</p>', ...fields })
const inOneHour = () => new Date(Date.now() + 3600_000).toISOString()

describe('POST /api/v1/emails', () => {
  test('answers the email id; GET gives the raw Email with its events in time order', async () => {
    const sent = await send({ to: 'one@example.net', cc: ['cc1@example.net'], bcc: 'bcc1@example.net', replyTo: 'reply@example.net', text: 'Hi' })
    expect(sent.status).toBe(200)
    expect(Object.keys(sent.body)).toEqual(['emailId'])
    await w.deliver()
    const email = await emailOf(w, sent.body.emailId)
    expect(email).toMatchObject({
      id: sent.body.emailId,
      teamId: w.projectId,
      to: ['one@example.net'],
      from: '"Ada" <ada@sender.example.com>',
      subject: 'Hello',
      html: '<p>Hi</p>',
      text: 'Hi',
      replyTo: ['reply@example.net'],
      cc: ['cc1@example.net'],
      bcc: ['bcc1@example.net'],
    })
    for (const field of ['createdAt', 'updatedAt']) expect(email[field]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(statusesOf(email)[0]).toBe('QUEUED')
    expect(statusesOf(email).filter((s: string) => s === 'DELIVERED')).toHaveLength(3)
    for (const event of email.emailEvents) expect(Object.keys(event).sort()).toEqual(['createdAt', 'data', 'emailId', 'status'])
    const times = email.emailEvents.map((e: any) => e.createdAt)
    expect(times).toEqual([...times].sort())
  })

  test.each([
    ['html only: a text part is derived from it', { html: '<h1>Welcome</h1><p>Your code is <b>1234</b></p>' }, ['text/plain', 'text/html']],
    ['text only', { html: undefined, text: 'Plain words' }, ['text/plain']],
    ['html and text: both as given', { html: '<p>Rich</p>', text: 'Plain' }, ['text/plain', 'text/html']],
  ])('%s', async (_, fields, types) => {
    const to = `parts-${types.length}-${Date.now()}@example.net`
    const sent = await send({ to, ...fields })
    expect(sent.status).toBe(200)
    await w.deliver()
    const message = receivedBy(w, to)
    expect(leavesOf(message).map((p) => p.headers['content-type']!.split(';')[0])).toEqual(types)
    if (fields.html === '<h1>Welcome</h1><p>Your code is <b>1234</b></p>') {
      expect(textOf(message, 'text/plain')).toMatch(/^Welcome\r\n[\s\S]*Your code is 1234/)
    }
  })

  test('the message has a Message-ID at the sender domain, a Date, and the attachments as sent', async () => {
    const pdf = Buffer.from('%PDF-1.4 not really a pdf \u0000\u00ff')
    const sent = await send({
      to: 'files@example.net',
      attachments: [
        { filename: 'invoice.pdf', content: pdf.toString('base64'), contentType: 'application/pdf' },
        { filename: 'notes.txt', content: Buffer.from('notes\nsecond line').toString('base64') },
        { filename: 'wide.csv', content: Buffer.from(`${'x,'.repeat(600)}\n`).toString('base64'), contentType: 'text/csv' },
      ],
    })
    await w.deliver()
    const message = receivedBy(w, 'files@example.net')
    expect(message.headers['message-id']).toBe(`<${sent.body.emailId}@sender.example.com>`)
    expect(Date.parse(message.headers['date']!)).toBeGreaterThan(Date.now() - 60_000)
    const attachments = leavesOf(message).filter((p) => /attachment/.test(p.headers['content-disposition'] ?? ''))
    expect(attachments.map((p) => p.headers['content-disposition'])).toEqual(['attachment; filename=invoice.pdf', 'attachment; filename=notes.txt', 'attachment; filename=wide.csv'])
    expect(attachments[0]!.headers['content-type']).toStartWith('application/pdf')
    expect(attachments[0]!.content.equals(pdf)).toBe(true)
    expect(attachments[1]!.content.toString()).toBe('notes\r\nsecond line')
    expect(attachments.map((p) => p.headers['content-transfer-encoding'])).toEqual(['base64', '7bit', 'quoted-printable'])
    expect(attachments[2]!.content.toString()).toBe(`${'x,'.repeat(600)}\r\n`)
  })

  test('custom headers reach the recipient', async () => {
    await send({ to: 'headers@example.net', headers: { 'X-Campaign': 'spring', 'List-Unsubscribe': '<mailto:u@sender.example.com>' } })
    await w.deliver()
    const message = receivedBy(w, 'headers@example.net')
    expect(message.headers['x-campaign']).toBe('spring')
    expect(message.headers['list-unsubscribe']).toBe('<mailto:u@sender.example.com>')
  })

  test('an email of another project is not found', async () => {
    const sent = await send({ to: 'mine@example.net' })
    const other = await w.t.project('Other')
    const response = await w.t.request('GET', `/api/v1/emails/${sent.body.emailId}`, { key: other.secretKey })
    expect(response.status).toBe(404)
  })
})

describe('inReplyToId', () => {
  test('threads the email under the one it answers: In-Reply-To names it, References carries the thread', async () => {
    const first = await send({ to: 'thread@example.net', subject: 'Order 1' })
    await w.deliver()
    const firstId = receivedBy(w, 'thread@example.net').headers['message-id']
    const second = await send({ to: 'thread@example.net', subject: 'Re: Order 1', inReplyToId: first.body.emailId })
    expect(second.status).toBe(200)
    await w.deliver()
    const replyHeaders = receivedBy(w, 'thread@example.net').headers
    expect(firstId).toBe(`<${first.body.emailId}@sender.example.com>`)
    expect(replyHeaders['in-reply-to']).toBe(firstId)
    expect(replyHeaders.references).toBe(firstId)
    const third = await send({ to: 'thread@example.net', subject: 'Re: Order 1', inReplyToId: second.body.emailId })
    await w.deliver()
    const thirdHeaders = receivedBy(w, 'thread@example.net').headers
    expect(thirdHeaders['in-reply-to']).toBe(`<${second.body.emailId}@sender.example.com>`)
    expect(thirdHeaders.references).toBe(`${firstId} <${second.body.emailId}@sender.example.com>`)
    expect(third.status).toBe(200)
  })

  test('null is no thread, as useSend allows', async () => {
    const sent = await send({ to: 'nothread@example.net', inReplyToId: null })
    expect(sent.status).toBe(200)
    await w.deliver()
    expect(receivedBy(w, 'nothread@example.net').headers['in-reply-to']).toBeUndefined()
  })

  test("another project's email, or none, is a 404 and nothing is queued", async () => {
    const other = await w.t.project('Thread elsewhere')
    const domain = await w.t.request('POST', '/api/v1/domains', { key: other.secretKey, body: { name: 'elsewhere.example.com', region: 'us-east-1' } })
    publishRecords(w.dns, domain.body.dnsRecords)
    await w.t.app.checker.check(domain.body.id)
    const theirs = await w.t.request('POST', '/api/v1/emails', { key: other.secretKey, body: { from: 'x@elsewhere.example.com', to: 'x@example.net', subject: 'S', html: '<p>x</p>' } })
    expect(theirs.status).toBe(200)
    await w.deliver()
    for (const inReplyToId of [theirs.body.emailId, 'no-such-email']) {
      const before = await rowCounts(w)
      const answer = await send({ to: 'reply@example.net', inReplyToId })
      expect(answer.status).toBe(404)
      expect(answer.body).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('inReplyToId') })
      expect(await rowCounts(w)).toEqual(before)
    }
  })
})

describe('POST /api/v1/emails/batch', () => {
  test('queues every email and answers their ids in order', async () => {
    const batch = ['b1', 'b2', 'b3'].map((name) => ({ from: FROM, to: `${name}@example.net`, subject: name, text: name }))
    const response = await post('/api/v1/emails/batch', batch)
    expect(response.status).toBe(200)
    expect(response.body.data).toHaveLength(3)
    for (const [i, item] of response.body.data.entries()) expect((await emailOf(w, item.emailId)).subject).toBe(`b${i + 1}`)
  })

  test('100 emails are accepted', async () => {
    const batch = Array.from({ length: 100 }, (_, i) => ({ from: FROM, to: `many${i}@example.net`, subject: 'Many', text: 'x', scheduledAt: inOneHour() }))
    const response = await post('/api/v1/emails/batch', batch)
    expect(response.status).toBe(200)
    expect(response.body.data).toHaveLength(100)
  })
})

describe('GET /api/v1/emails', () => {
  test('pages the project’s emails, newest first, with the total count', async () => {
    const count = Number(
      (await w.t.app.db.selectFrom('emails').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', w.projectId).executeTakeFirstOrThrow()).n,
    )
    const first = await w.t.request('GET', '/api/v1/emails?page=1&limit=2', { key: w.key })
    const second = await w.t.request('GET', '/api/v1/emails?page=2&limit=2', { key: w.key })
    expect({ status: first.status, body: first.status === 200 ? undefined : first.body }).toEqual({ status: 200, body: undefined })
    expect(first.body.count).toBe(count)
    expect(first.body.data).toHaveLength(2)
    expect(second.body.data).toHaveLength(2)
    const ids = [...first.body.data, ...second.body.data].map((e: any) => e.id)
    expect(new Set(ids).size).toBe(4)
    expect(ids).toEqual([...ids].sort().reverse())
    expect(first.body.data[0]).toMatchObject({ teamId: w.projectId, from: expect.any(String), to: expect.any(Array) })
    expect(first.body.data[0].emailEvents).toBeUndefined()
    const fresh = await w.t.project('Empty')
    expect((await w.t.request('GET', '/api/v1/emails', { key: fresh.secretKey })).body).toEqual({ data: [], count: 0 })
  })

  test.each(['limit=0', 'limit=101', 'page=0', 'page=x'])('?%s is a 422', async (query) => {
    expect((await w.t.request('GET', `/api/v1/emails?${query}`, { key: w.key })).status).toBe(422)
  })
})

describe('scheduled emails', () => {
  test('wait as SCHEDULED; can be moved, then cancelled; then neither again', async () => {
    const at = inOneHour()
    const sent = await send({ to: 'later@example.net', scheduledAt: at })
    expect(sent.status).toBe(200)
    await w.deliver()
    let email = await emailOf(w, sent.body.emailId)
    expect(email).toMatchObject({ status: 'SCHEDULED', scheduledAt: at })
    expect(statusesOf(email)).toEqual(['SCHEDULED'])

    const moved = new Date(Date.now() + 7200_000).toISOString()
    const patched = await w.t.request('PATCH', `/api/v1/emails/${sent.body.emailId}`, { key: w.key, body: { scheduledAt: moved } })
    expect(patched).toMatchObject({ status: 200, body: { emailId: sent.body.emailId } })
    expect((await emailOf(w, sent.body.emailId)).scheduledAt).toBe(moved)

    const cancelled = await w.t.request('POST', `/api/v1/emails/${sent.body.emailId}/cancel`, { key: w.key })
    expect(cancelled).toMatchObject({ status: 200, body: { emailId: sent.body.emailId } })
    email = await emailOf(w, sent.body.emailId)
    expect(email.status).toBe('CANCELLED')
    expect(statusesOf(email)).toEqual(['SCHEDULED', 'SCHEDULED', 'CANCELLED'])
    const deliveries = await w.t.app.db.selectFrom('deliveries').select('state').where('email_id', '=', sent.body.emailId).execute()
    expect(deliveries.map((d) => d.state)).toEqual(['cancelled'])

    const again = await w.t.request('PATCH', `/api/v1/emails/${sent.body.emailId}`, { key: w.key, body: { scheduledAt: moved } })
    expect(again).toMatchObject({ status: 400, body: { code: 'NOT_SCHEDULED' } })
    expect((await w.t.request('POST', `/api/v1/emails/${sent.body.emailId}/cancel`, { key: w.key })).status).toBe(400)
    expect(receivedCount(w, 'later@example.net')).toBe(0)
  })

  test('an email already sent can be neither moved nor cancelled', async () => {
    const sent = await send({ to: 'now@example.net' })
    await w.deliver()
    const patched = await w.t.request('PATCH', `/api/v1/emails/${sent.body.emailId}`, { key: w.key, body: { scheduledAt: inOneHour() } })
    expect(patched).toMatchObject({ status: 400, body: { code: 'NOT_SCHEDULED', message: expect.stringContaining('DELIVERED') } })
    expect((await w.t.request('POST', `/api/v1/emails/${sent.body.emailId}/cancel`, { key: w.key })).status).toBe(400)
  })

  test.each([
    ['in the past', '2020-01-01T00:00:00Z'],
    ['unparsable', 'tomorrow at nine'],
    ['not a date', '2026-13-45T99:00:00Z'],
  ])('moving to a time %s is a 422', async (_, scheduledAt) => {
    const sent = await send({ to: 'moving@example.net', scheduledAt: inOneHour() })
    const patched = await w.t.request('PATCH', `/api/v1/emails/${sent.body.emailId}`, { key: w.key, body: { scheduledAt } })
    expect(patched).toMatchObject({ status: 422, body: { errors: [{ field: 'scheduledAt' }] } })
    expect((await emailOf(w, sent.body.emailId)).emailEvents).toHaveLength(1)
  })

  test('an unknown email is a 404 for PATCH and cancel', async () => {
    const id = '01a20000-0000-7000-8000-000000000000'
    expect((await w.t.request('PATCH', `/api/v1/emails/${id}`, { key: w.key, body: { scheduledAt: inOneHour() } })).status).toBe(404)
    expect((await w.t.request('POST', `/api/v1/emails/${id}/cancel`, { key: w.key })).status).toBe(404)
  })
})

const base64 = Buffer.from('hello').toString('base64')
const attachment = (i: number) => ({ filename: `f${i}.txt`, content: base64 })
const valid = { from: FROM, to: 'ok@example.net', subject: 'Hello', html: '<p>Hi</p>' }

const badRequests: Array<[string, string, unknown, number]> = [
  ['a from domain that is not the project’s', '/api/v1/emails', { ...valid, from: 'ada@elsewhere.example.org' }, 403],
  ['a from domain that is not verified', '/api/v1/emails', { ...valid, from: 'ada@unverified.example.com' }, 403],
  ['no from', '/api/v1/emails', { ...valid, from: undefined }, 422],
  ['a malformed to', '/api/v1/emails', { ...valid, to: 'not-an-email' }, 422],
  ['a to without a domain dot', '/api/v1/emails', { ...valid, to: 'jane@localhost' }, 422],
  ['a to with a space in it', '/api/v1/emails', { ...valid, to: 'jane doe@example.net' }, 422],
  ['a to with a line break and a Bcc header', '/api/v1/emails', { ...valid, to: 'jane@example.net\r\nBcc: thief@example.net' }, 422],
  ['two addresses in one to string', '/api/v1/emails', { ...valid, to: 'a@example.net, b@example.net' }, 422],
  ['a malformed cc', '/api/v1/emails', { ...valid, cc: ['fine@example.net', 'bad@@example.net'] }, 422],
  ['a malformed replyTo', '/api/v1/emails', { ...valid, replyTo: 'reply at example.net' }, 422],
  ['51 recipients in to, cc and bcc', '/api/v1/emails', { ...valid, to: Array.from({ length: 30 }, (_, i) => `t${i}@example.net`), bcc: Array.from({ length: 21 }, (_, i) => `b${i}@example.net`) }, 422],
  ['no html, text or template', '/api/v1/emails', { ...valid, html: undefined }, 422],
  ['no subject', '/api/v1/emails', { ...valid, subject: undefined }, 422],
  ['a subject with a line break', '/api/v1/emails', { ...valid, subject: 'Hi\r\nBcc: thief@example.net' }, 422],
  ['a header value with CR LF', '/api/v1/emails', { ...valid, headers: { 'X-Note': 'a\r\nBcc: thief@example.net' } }, 422],
  ['a header value with a bare LF', '/api/v1/emails', { ...valid, headers: { 'X-Note': 'a\nBcc: thief@example.net' } }, 422],
  ['a header name with CR LF', '/api/v1/emails', { ...valid, headers: { 'Bcc: thief@example.net\r\nX-Note': 'a' } }, 422],
  ['a header name with a colon', '/api/v1/emails', { ...valid, headers: { 'X-A:B': 'a' } }, 422],
  ['a header Mailstead sets itself', '/api/v1/emails', { ...valid, headers: { Bcc: 'thief@example.net' } }, 422],
  ['attachment content that is not base64', '/api/v1/emails', { ...valid, attachments: [{ filename: 'a.txt', content: 'not base64!' }] }, 422],
  ['an attachment file name with a line break', '/api/v1/emails', { ...valid, attachments: [{ filename: 'a\r\n.txt', content: base64 }] }, 422],
  ['11 attachments', '/api/v1/emails', { ...valid, attachments: Array.from({ length: 11 }, (_, i) => attachment(i)) }, 422],
  ['scheduledAt in the past', '/api/v1/emails', { ...valid, scheduledAt: '2020-01-01T00:00:00Z' }, 422],
  ['scheduledAt unparsable', '/api/v1/emails', { ...valid, scheduledAt: 'next tuesday' }, 422],
  ['a template id that does not exist', '/api/v1/emails', { ...valid, html: undefined, templateId: 'nope' }, 422],
  ['an unknown field', '/api/v1/emails', { ...valid, priority: 'high' }, 422],
  ['an empty batch', '/api/v1/emails/batch', [], 422],
  ['101 emails in a batch', '/api/v1/emails/batch', Array.from({ length: 101 }, () => valid), 422],
  ['a batch with one bad email among good ones', '/api/v1/emails/batch', [valid, valid, { ...valid, to: 'broken' }, valid], 422],
  ['a batch with one email from an unverified domain', '/api/v1/emails/batch', [valid, { ...valid, from: 'ada@unverified.example.com' }], 403],
]

describe('bad input is refused and nothing is queued', () => {
  test.each(badRequests)('%s', async (_, path, body, status) => {
    await w.deliver()
    const before = await rowCounts(w)
    const response = await post(path, body)
    expect(response.status).toBe(status)
    expect(response.body).toMatchObject({ success: false, statusCode: status, error: { code: expect.any(String) } })
    await w.deliver()
    expect(await rowCounts(w)).toEqual(before)
  })

  test('a from domain that is not verified names the domain and its status', async () => {
    const response = await send({ to: 'x@example.net', from: 'ada@unverified.example.com' })
    expect(response.body).toMatchObject({ code: 'DOMAIN_NOT_VERIFIED', suggestion: expect.stringContaining('unverified.example.com is NOT_STARTED') })
    const foreign = await send({ to: 'x@example.net', from: 'ada@elsewhere.example.org' })
    expect(foreign.body.suggestion).toContain('elsewhere.example.org')
  })

  test('field errors name the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ headers: { 'X-Note': 'a\r\nb' } }, 'headers.X-Note'],
      [{ attachments: [attachment(0), { filename: 'b.txt', content: '***' }] }, 'attachments[1].content'],
      [{ scheduledAt: 'soon' }, 'scheduledAt'],
      [{ to: ['ok@example.net', 'not-an-email'] }, 'to[1]'],
    ]
    for (const [fields, field] of cases) expect((await send({ to: 'x@example.net', ...fields })).body.errors).toMatchObject([{ field, message: expect.any(String) }])
  })
  test('in a batch, a field error names the email by its place', async () => {
    const batch = [valid, { ...valid, to: 'not-an-email' }, { ...valid, cc: 'bad@@example.net' }]
    expect((await post('/api/v1/emails/batch', batch.slice(0, 2))).body.errors).toMatchObject([{ field: '[1].to[0]', message: expect.any(String) }])
    expect((await post('/api/v1/emails/batch', [valid, batch[2]])).body.errors).toMatchObject([{ field: '[1].cc[0]', message: expect.any(String) }])
  })
})

describe('body size', () => {
  const MiB = 1024 * 1024
  const json = { 'content-type': 'application/json' }
  /** A scheduled send of exactly `size` bytes of JSON, its text filling the space. */
  const bodyOf = (size: number, attachments: unknown[] = []) => {
    const shell = (text: string) => JSON.stringify({ ...valid, to: 'big@example.net', text, scheduledAt: inOneHour(), attachments })
    return shell('x'.repeat(size - shell('').length))
  }
  const accepted = async (raw: string) => {
    const response = await w.t.request('POST', '/api/v1/emails', { key: w.key, raw, headers: json })
    if (response.status === 200) await w.t.request('POST', `/api/v1/emails/${response.body.emailId}/cancel`, { key: w.key })
    return { status: response.status, error: response.body.message }
  }

  test('a send body of exactly 10 MiB is accepted', async () => {
    const raw = bodyOf(10 * MiB)
    expect(Buffer.byteLength(raw)).toBe(10 * MiB)
    expect(await accepted(raw)).toEqual({ status: 200, error: undefined })
  })

  test('an attachment of 7 MiB (about 9.3 MiB of base64) fits in a send body and is accepted', async () => {
    const content = Buffer.alloc(7 * MiB, 'seven mebibytes ').toString('base64')
    const raw = bodyOf(10 * MiB - 1000, [{ filename: 'big.bin', content }])
    expect(await accepted(raw)).toEqual({ status: 200, error: undefined })
  })

  test('a send body of 10 MiB and 1 byte is a 413, and nothing is queued', async () => {
    const before = await rowCounts(w)
    for (const path of ['/api/v1/emails', '/api/v1/emails/batch', '/v1/send']) {
      const response = await w.t.request('POST', path, { key: w.key, raw: bodyOf(10 * MiB + 1), headers: json })
      expect({ path, status: response.status, code: response.body.code }).toEqual({ path, status: 413, code: 'PAYLOAD_TOO_LARGE' })
    }
    expect(await rowCounts(w)).toEqual(before)
  })
})
