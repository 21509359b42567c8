// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import nodemailer from 'nodemailer'
import SMTPConnection from 'nodemailer/lib/smtp-connection'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
let port: number
let publicKey: string

beforeAll(async () => {
  w = await createWorld({ started: true, settings: { 'relay-port': '0', 'relay-max-recipients': '5', 'smtp-max-message-mb': '1' } })
  port = w.t.app.listeners()!.relay.port!
  publicKey = (await w.t.project('Other')).publicKey
})

afterAll(() => w.close())

const transport = (pass: string, options: Record<string, unknown> = {}) =>
  nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false }, auth: { user: 'mailstead', pass }, ...options } as never)

/** A raw SMTP session, to see the server's exact answers. */
async function session(steps: (c: SMTPConnection) => Promise<unknown>, options: Record<string, unknown> = {}) {
  const connection = new SMTPConnection({ host: '127.0.0.1', port, tls: { rejectUnauthorized: false }, ...options } as never)
  connection.on('error', () => {})
  await new Promise<void>((resolve, reject) => connection.connect((error?: Error | null) => (error ? reject(error) : resolve())))
  try {
    return await steps(connection)
  } finally {
    connection.quit()
  }
}
const login = (c: SMTPConnection, pass: string) =>
  new Promise<unknown>((resolve) => c.login({ user: 'mailstead', pass }, (error) => resolve(error ?? 'ok')))
const sendRaw = (c: SMTPConnection, from: string, to: string[], message: string) =>
  new Promise<any>((resolve) => c.send({ from, to }, message, (error, info) => resolve(error ?? info)))

describe('the SMTP relay', () => {
  test('an application sends through it with STARTTLS and AUTH, and the mail leaves DKIM-signed with its id in the 250', async () => {
    const info: any = await transport(w.key).sendMail({
      from: '"Ada" <ada@sender.example.com>',
      to: 'bob@example.net',
      cc: 'carol@example.net',
      bcc: 'hidden@example.net',
      subject: 'Relayed ✓',
      text: 'Hello from a legacy app',
      attachments: [{ filename: 'note.txt', content: 'attached' }],
      headers: { 'X-Legacy-App': 'yes' },
    })
    const emailId = /Queued as (\S+)/.exec(info.response)![1]!
    await w.deliver()
    const email = (await w.t.request('GET', `/api/v1/emails/${emailId}`, { key: w.key })).body
    expect(email).toMatchObject({ subject: 'Relayed ✓', to: ['bob@example.net'], cc: ['carol@example.net'], bcc: ['hidden@example.net'] })
    expect(email.emailEvents.filter((e: any) => e.status === 'DELIVERED')).toHaveLength(3)
    const copies = w.mx.received.filter((m) => ['bob@example.net', 'carol@example.net', 'hidden@example.net'].includes(m.to[0]!))
    expect(copies).toHaveLength(3)
    const raw = copies[0]!.raw.toString()
    expect(raw).toContain('X-Legacy-App: yes')
    expect(raw).toContain('filename=note.txt')
    expect(raw).toContain(`Message-ID: ${info.messageId}`)
    expect(raw).not.toContain('hidden@example.net')
    expect((await w.dkim(copies[0]!.raw))[0]).toMatchObject({ status: 'pass', domain: 'sender.example.com' })
  })

  test('a message without Message-ID or Date gets them', async () => {
    const result: any = await session(async (c) => {
      await login(c, w.key)
      return sendRaw(c, 'ada@sender.example.com', ['bare@example.net'], 'From: ada@sender.example.com\r\nTo: bare@example.net\r\nSubject: bare\r\n\r\nhi\r\n')
    })
    expect(result.response).toMatch(/^250 2\.0\.0 Queued as /)
    await w.deliver()
    const raw = w.mx.received.find((m) => m.to.includes('bare@example.net'))!.raw.toString()
    expect(raw).toMatch(/^Message-ID: <[^>]+@sender\.example\.com>$/m)
    expect(raw).toMatch(/^Date: /m)
  })

  test.each([
    ['without AUTH', async (c: SMTPConnection) => sendRaw(c, 'ada@sender.example.com', ['x@example.net'], 'Subject: x\r\n\r\nx'), 530, '5.7.0'],
    ['with a wrong key', (c: SMTPConnection) => login(c, 'sk_' + 'x'.repeat(43)), 535, '5.7.8'],
    ['with a public key', (c: SMTPConnection) => login(c, publicKey), 535, '5.7.8'],
  ])('refuses mail %s', async (_, steps, code, enhanced) => {
    const result: any = await session(steps)
    expect(result.responseCode).toBe(code)
    expect(result.response).toContain(enhanced)
  })

  test('AUTH is refused before STARTTLS', async () => {
    const result: any = await session((c) => login(c, w.key), { ignoreTLS: true })
    expect(result).toBeInstanceOf(Error)
    expect(result.responseCode ?? 500).toBeGreaterThanOrEqual(500)
  })

  test.each([
    ['an envelope sender of a domain the project has not verified', 'app@elsewhere.example', 'From: app@sender.example.com'],
    ['a From header of a domain the project has not verified', 'app@sender.example.com', 'From: app@elsewhere.example'],
  ])('refuses %s with 550 5.7.1 and the reason', async (_, envelopeFrom, fromHeader) => {
    const result: any = await session(async (c) => {
      await login(c, w.key)
      return sendRaw(c, envelopeFrom, ['x@example.net'], `${fromHeader}\r\nTo: x@example.net\r\nSubject: x\r\n\r\nx`)
    })
    expect(result.responseCode).toBe(550)
    expect(result.response).toContain('5.7.1')
    expect(result.response).toContain('elsewhere.example')
  })

  test('refuses recipients past the limit with 452, and a message over the size limit with 552', async () => {
    const tooMany: any = await session(async (c) => {
      await login(c, w.key)
      return sendRaw(c, 'ada@sender.example.com', Array.from({ length: 6 }, (_, i) => `r${i}@example.net`), 'From: ada@sender.example.com\r\n\r\nx')
    })
    expect(tooMany.rejected ?? []).toEqual(['r5@example.net'])
    const big: any = await session(async (c) => {
      await login(c, w.key)
      return sendRaw(c, 'ada@sender.example.com', ['big@example.net'], `From: ada@sender.example.com\r\n\r\n${'x'.repeat(1100 * 1024)}`)
    })
    expect(big.responseCode).toBe(552)
  })
})
