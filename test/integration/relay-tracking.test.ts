// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import nodemailer from 'nodemailer'
import { parseMime, textOf } from '../helpers/sending.ts'
import { createWorld, type World } from '../helpers/world.ts'

const BASE = 'https://mail.example.org'
let w: World
let port: number

beforeAll(async () => {
  w = await createWorld({ started: true, settings: { 'relay-port': '0', 'public-url': BASE } })
  port = w.t.app.listeners()!.relay.port!
})

afterAll(() => w.close())

const transport = () =>
  nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false }, auth: { user: 'mailstead', pass: w.key } } as never)

const HTML = '<html><body><p><a href="https://shop.example.com/sale">Sale</a> <a href="https://app.example.com/reset?token=s3cr3t">Reset</a></p></body></html>'
const tracked = (html: string, kind: 'o' | 'c') => (html.match(new RegExp(`${BASE}/t/${kind}/`, 'g')) ?? []).length
const setTracking = (flags: Record<string, boolean>) => w.t.request('PATCH', `/domains/${w.domain.id}`, { key: w.key, body: flags })

/** Relays a message with an HTML and a text part and an attachment; answers what the MX received. */
async function relay(headers: Record<string, string> = {}) {
  const to = `relayed-${Bun.randomUUIDv7()}@example.net`
  await transport().sendMail({ from: 'ada@sender.example.com', to, subject: 'Relayed', html: HTML, text: 'Sale: https://shop.example.com/sale', headers, attachments: [{ filename: 'a.txt', content: 'attached' }] })
  await w.deliver()
  const raw = w.mx.received.find((m) => m.to.includes(to))!.raw
  return { raw, message: parseMime(raw.toString()) }
}

describe('tracking of relayed mail', () => {
  test('X-Mailstead-Track: opens, clicks tracks the HTML part but its secret link; the rest is as written, the field gone, DKIM good', async () => {
    const { raw, message } = await relay({ 'X-Mailstead-Track': 'opens, clicks' })
    const html = textOf(message, 'text/html')!
    expect([tracked(html, 'o'), tracked(html, 'c')]).toEqual([1, 1])
    expect(html).toContain('href="https://app.example.com/reset?token=s3cr3t"')
    expect(textOf(message, 'text/plain')).toBe('Sale: https://shop.example.com/sale')
    expect(raw.toString()).toContain('filename=a.txt')
    expect(raw.toString().toLowerCase()).not.toContain('x-mailstead-track')
    expect((await w.dkim(raw)).map((r) => r.status)).toEqual(['pass', 'pass'])
  })

  test("without the field, the domain's transactional switches decide: off, as written; on, tracked; none turns them off", async () => {
    const asWritten = textOf((await relay()).message, 'text/html')!
    expect(asWritten).toBe(HTML)
    await setTracking({ transactionalClickTracking: true, clickTracking: false })
    expect(tracked(textOf((await relay()).message, 'text/html')!, 'c')).toBe(1)
    expect(textOf((await relay({ 'X-Mailstead-Track': 'none' })).message, 'text/html')).toBe(HTML)
    const opensOnly = textOf((await relay({ 'X-Mailstead-Track': 'opens' })).message, 'text/html')!
    expect([tracked(opensOnly, 'o'), tracked(opensOnly, 'c')]).toEqual([1, 0])
    await setTracking({ transactionalClickTracking: false })
  })

  test('a value it does not know is refused, naming the field and its words', async () => {
    const refused = await transport()
      .sendMail({ from: 'ada@sender.example.com', to: 'nobody@example.net', subject: 'x', html: '<p>x</p>', headers: { 'X-Mailstead-Track': 'everything' } })
      .catch((error: Error) => error)
    expect(refused).toBeInstanceOf(Error)
    expect(String((refused as Error).message)).toContain('X-Mailstead-Track: "everything" is not one of opens, clicks, none')
  })
})
