// @database-incidental: the SMTP protocol (sessions, limits, TLS, AUTH); the database behind it is tested on both elsewhere
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import libmime from 'libmime'
import { publishRecords } from '../helpers/domains.ts'
import type { RawSocket } from '../helpers/raw-socket.ts'
import { queuedId, relaySession, sendMessage } from '../helpers/relay-client.ts'
import { createWorld, type World } from '../helpers/world.ts'

let w: World
let port: number
let socket: RawSocket

/** A second verified domain of the project, and one it has added but not verified. */
beforeAll(async () => {
  w = await createWorld({ started: true, settings: { 'relay-port': '0' } })
  port = w.t.app.listeners()!.relay.port!
  const second = await w.t.request('POST', '/api/v1/domains', { key: w.key, body: { name: 'second.example.com', region: 'us-east-1' } })
  publishRecords(w.dns, second.body.dnsRecords)
  await w.t.app.checker.check(second.body.id)
  await w.t.request('POST', '/api/v1/domains', { key: w.key, body: { name: 'pending.example.com', region: 'us-east-1' } })
  socket = await relaySession(port, w.key)
})

afterAll(async () => {
  socket.close()
  await w.close()
})

const FROM = 'ada@sender.example.com'
let n = 0

/** Sends a message (its header block given) to a fresh visible and a fresh hidden recipient; answers the reply and the recipients. */
async function relay(headers: string | Buffer, options: { body?: string; smtpUtf8?: boolean; to?: string[] } = {}) {
  n++
  const visible = `to${n}@example.net`
  const hidden = `hidden${n}@example.net`
  const head = typeof headers === 'string' ? Buffer.from(headers.replaceAll('{to}', visible).replaceAll('{hidden}', hidden)) : headers
  const message = Buffer.concat([head, Buffer.from(`\r\n${options.body ?? 'Hello.\r\n'}`)])
  const reply = await sendMessage(socket, FROM, options.to ?? [visible, hidden], message, options)
  return { reply, visible, hidden }
}

/** What each recipient received, and the message as stored. */
async function outcome(reply: string) {
  const id = queuedId(reply)
  if (!id) throw new Error(`not queued: ${reply}`)
  await w.deliver()
  const stored = await w.t.app.db.selectFrom('email_contents').select('mime').where('email_id', '=', id).executeTakeFirstOrThrow()
  const deliveries = await w.t.app.db.selectFrom('deliveries').select('recipient').where('email_id', '=', id).execute()
  const copies = w.mx.received.filter((m) => deliveries.some((d) => m.to.includes(d.recipient)))
  return { id, stored: Buffer.from(stored.mime).toString('latin1'), copies: copies.map((m) => ({ to: m.to, raw: m.raw.toString('latin1') })) }
}

const headOf = (raw: string) => raw.slice(0, raw.search(/\r?\n\r?\n/) + 2)

describe('the relay sends what the application meant', () => {
  test.each([
    ['Bcc', 'Bcc: {hidden}\r\n'],
    ['BCC in capitals', 'BCC: {hidden}\r\n'],
    ['bcc in lower case', 'bcc: {hidden}\r\n'],
    ['a Bcc folded over two lines', 'Bcc: someone@example.org,\r\n {hidden}\r\n'],
    ['a Bcc with a space before its colon', 'Bcc : {hidden}\r\n'],
    ['two Bcc fields', 'Bcc: {hidden}\r\nBcc: other@example.org\r\n'],
    ['Resent-Bcc', 'Resent-Bcc: {hidden}\r\n'],
    ['a Bcc with bare LF line ends', 'Bcc: {hidden}\n'],
  ])('%s is removed before delivery and from the stored message, and the hidden recipient still gets the mail', async (_, bcc) => {
    const sent = await relay(`From: ${FROM}\r\nTo: {to}\r\n${bcc}Subject: hidden\r\n`)
    const { stored, copies } = await outcome(sent.reply)
    expect(copies.map((c) => c.to[0]).sort()).toEqual([sent.hidden, sent.visible].sort())
    for (const raw of [stored, ...copies.map((c) => c.raw)]) {
      expect(raw).not.toContain(sent.hidden)
      expect(headOf(raw)).not.toMatch(/^(resent-)?bcc\s*:/im)
      expect(raw).toContain('Subject: hidden')
    }
  })

  test('a Bcc inside an attached message (message/rfc822) is left as it is', async () => {
    const attached = ['Content-Type: message/rfc822', '', `From: someone@example.org`, 'Bcc: inner@example.org', 'Subject: inner', '', 'inner body', ''].join('\r\n')
    const body = ['--b', 'Content-Type: text/plain', '', 'see attached', '--b', attached, '--b--', ''].join('\r\n')
    const sent = await relay(`From: ${FROM}\r\nTo: {to}\r\nBcc: {hidden}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n`, { body })
    const { stored, copies } = await outcome(sent.reply)
    for (const raw of [stored, copies[0]!.raw]) {
      expect(raw).toContain('Bcc: inner@example.org')
      expect(raw).not.toContain(sent.hidden)
    }
  })

  test('Return-Path and Content-Length given by the application are dropped: the return path is the server’s', async () => {
    const sent = await relay(`Return-Path: <bounces@elsewhere.example>\r\nFrom: ${FROM}\r\nTo: {to}\r\nContent-Length: 3\r\n`, { to: [`rp${n}@example.net`] })
    const { copies } = await outcome(sent.reply)
    expect(copies[0]!.raw).not.toContain('elsewhere.example')
    expect(copies[0]!.raw).not.toMatch(/^Content-Length/im)
    expect(w.mx.received.at(-1)!.from).toMatch(/^bounces\+.+@mst\.sender\.example\.com$/)
  })

  test.each([
    ['two From fields, one of a domain the project does not have', `From: ${FROM}\r\nFrom: boss@elsewhere.example\r\nSender: ${FROM}\r\n`, /elsewhere\.example/],
    ['a From with an address of a domain the project does not have', `From: ${FROM}, boss@elsewhere.example\r\nSender: ${FROM}\r\n`, /elsewhere\.example/],
    ['a From of a domain that is added but not verified', `From: ${FROM}, news@pending.example.com\r\nSender: ${FROM}\r\n`, /pending\.example\.com is not a verified domain/],
    ['a From group with a stranger in it', `From: team: ${FROM}, boss@elsewhere.example;\r\nSender: ${FROM}\r\n`, /elsewhere\.example/],
    ['a From with several verified addresses and no Sender', `From: ${FROM}, bob@second.example.com\r\n`, /needs a Sender/],
    ['a From with several addresses and a Sender naming neither', `From: ${FROM}, bob@second.example.com\r\nSender: carol@second.example.com\r\n`, /needs a Sender/],
    ['a Sender of a domain the project does not have', `From: ${FROM}\r\nSender: boss@elsewhere.example\r\n`, /elsewhere\.example/],
    ['a Resent-From of a domain the project does not have', `From: ${FROM}\r\nResent-From: boss@elsewhere.example\r\n`, /elsewhere\.example/],
    ['an encoded word hiding an address in From', `From: =?utf-8?Q?boss=40elsewhere.example?=\r\n`, /is not an address/],
    ['a display name showing another address', `From: "boss@elsewhere.example" <${FROM}>\r\n`, /another address/],
    ['an encoded display name showing another address', `From: =?utf-8?B?${Buffer.from('boss@elsewhere.example').toString('base64')}?= <${FROM}>\r\n`, /another address/],
    ['a stray line in the header block', `From: ${FROM}\r\nBcc {hidden}\r\n`, /not a header field/],
  ])('refuses %s with 5xx and the reason', async (_, headers, reason) => {
    const { reply } = await relay(`${headers}To: {to}\r\nSubject: spoof\r\n`)
    expect(reply).toMatch(/^55[04] 5\.(7\.1|6\.0) /)
    expect(reply).toMatch(reason)
  })

  test('several authors on verified domains with a Sender naming one of them go out, as one From field', async () => {
    const sent = await relay(`From: ${FROM}\r\nFrom: Bob <bob@second.example.com>\r\nSender: ${FROM}\r\nTo: {to}\r\n`, { to: [`authors${n}@example.net`] })
    const { copies } = await outcome(sent.reply)
    const head = headOf(copies[0]!.raw)
    expect(head.match(/^From:/gm)).toHaveLength(1)
    expect(head).toContain(`From: ${FROM}, Bob <bob@second.example.com>`)
    expect(head).toContain(`Sender: ${FROM}`)
  })

  test('Sender may be any verified domain of the project; Reply-To may name anyone', async () => {
    const sent = await relay(`From: ${FROM}\r\nSender: ops@second.example.com\r\nReply-To: help@anywhere.example\r\nTo: {to}\r\n`, { to: [`reply${n}@example.net`] })
    const { id, copies } = await outcome(sent.reply)
    expect(copies[0]!.raw).toContain('Reply-To: help@anywhere.example')
    const email = (await w.t.request('GET', `/api/v1/emails/${id}`, { key: w.key })).body
    expect(email.replyTo).toEqual(['help@anywhere.example'])
  })

  test('without SMTPUTF8, 8-bit headers are sent as encoded words, never as they came', async () => {
    const sent = await relay(`From: Adá <${FROM}>\r\nTo: {to}\r\nSubject: Grüße aus Köln\r\n`, { to: [`utf${n}@example.net`] })
    const { id, stored, copies } = await outcome(sent.reply)
    for (const raw of [stored, copies[0]!.raw]) expect(headOf(raw)).not.toMatch(/[\x80-\xff]/)
    expect(libmime.decodeWords(/^Subject: (.*(\r\n .*)*)/m.exec(copies[0]!.raw)![1]!.replace(/\r\n /g, ' '))).toBe('Grüße aus Köln')
    const email = (await w.t.request('GET', `/api/v1/emails/${id}`, { key: w.key })).body
    expect(email).toMatchObject({ subject: 'Grüße aus Köln', from: `Adá <${FROM}>` })
  })

  test('with SMTPUTF8, UTF-8 headers go as they are', async () => {
    const sent = await relay(`From: ${FROM}\r\nTo: {to}\r\nSubject: Grüße\r\n`, { to: [`utf8ok${n}@example.net`], smtpUtf8: true })
    const { copies } = await outcome(sent.reply)
    expect(Buffer.from(copies[0]!.raw, 'latin1').toString('utf8')).toContain('Subject: Grüße')
  })

  test.each([
    ['a non-ASCII address without SMTPUTF8', Buffer.from(`From: ${FROM}\r\nTo: jürgen@example.net\r\n`), /554 5\.6\.7 .*needs SMTPUTF8/],
    ['8-bit header bytes that are not UTF-8', Buffer.from(`From: ${FROM}\r\nSubject: Gr\xfc\xdfe\r\n`, 'latin1'), /554 5\.6\.0 .*not UTF-8/],
    ['a NUL byte in a header', Buffer.from(`From: ${FROM}\r\nSubject: a\0b\r\n`), /554 5\.6\.0 .*NUL byte/],
    ['a CR-only line end hiding a Bcc', Buffer.from(`From: ${FROM}\rBcc: hidden@example.net\r\nSubject: x\r\n`), /554 5\.6\.0 .*line 1 has a CR/],
    ['CR-only line ends throughout', Buffer.from(`From: ${FROM}\rTo: x@example.net\rSubject: x\r`), /554 5\.6\.0 .*has a CR/],
    ['a header line over 998 octets', Buffer.from(`From: ${FROM}\r\nX-Long: ${'a'.repeat(1000)}\r\n`), /554 5\.6\.0 .*over the limit of 998/],
  ])('refuses %s with 5xx and the reason', async (_, head, reason) => {
    const { reply } = await relay(head, { to: [`bad${n}@example.net`] })
    expect(reply).toMatch(reason)
  })

  test.each([
    ['a NUL byte in the body', 'Hello\0there\r\n', /NUL byte/],
    ['a body line over 998 octets', `${'b'.repeat(2000)}\r\n`, /line \d+ is 2000 octets long/],
    ['a bare CR before a dot in the body (SMTP smuggling)', 'Hello\r.\r\nMAIL FROM:<x@evil.example>\r\n', /has a CR/],
  ])('refuses %s', async (_, body, reason) => {
    const { reply } = await relay(`From: ${FROM}\r\nTo: {to}\r\n`, { body, to: [`body${n}@example.net`] })
    expect(reply).toMatch(/^554 5\.6\.0 /)
    expect(reply).toMatch(reason)
  })

  test('fields that show the app\'s own network are dropped (on by default); a public trace line and the rest stay', async () => {
    const head = [
      `From: ${FROM}`, 'To: {to}', 'X-Originating-IP: [10.0.3.7]', 'X-Forwarded-For: 192.168.1.20, 10.0.0.1',
      'Received: from app-7.internal (app-7.internal [10.1.2.3])\r\n\tby relay.internal with ESMTP; Fri, 27 Nov 2026 09:00:00 +0000',
      'Received: from mail.example.org (mail.example.org [93.184.215.14]) by relay; Fri, 27 Nov 2026 09:00:00 +0000',
      'X-Mailer: Acme 2.1', 'Subject: hello', '',
    ].join('\r\n')
    const sent = await relay(head, { to: [`origin${n}@example.net`] })
    const { copies } = await outcome(sent.reply)
    const received = headOf(copies[0]!.raw)
    for (const gone of ['10.0.3.7', '192.168.1.20', '10.1.2.3', 'X-Originating-IP', 'X-Forwarded-For', 'relay.internal']) expect(received).not.toContain(gone)
    expect(received).toContain('[93.184.215.14]')
    expect(received).toContain('X-Mailer: Acme 2.1')
    expect(await w.dkim(Buffer.from(copies[0]!.raw, 'latin1'))).toEqual([expect.objectContaining({ status: 'pass' }), expect.objectContaining({ status: 'pass' })])
  })

  test('500 X- headers go out as they came, each one', async () => {
    const many = Array.from({ length: 500 }, (_, i) => `X-Tag-${i}: value ${i}`).join('\r\n')
    const sent = await relay(`From: ${FROM}\r\nTo: {to}\r\n${many}\r\n`, { to: [`many${n}@example.net`] })
    expect(sent.reply).toMatch(/^250 /)
    const { copies } = await outcome(sent.reply)
    expect(headOf(copies[0]!.raw).match(/^X-Tag-\d+: /gm)).toHaveLength(500)
  })

  test('a 64 KB header on one line is refused with 554 5.6.0 and why; folded under 998 octets a line, it goes out', async () => {
    const long = await relay(`From: ${FROM}\r\nTo: {to}\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n`, { to: [`big${n}@example.net`] })
    expect(long.reply).toMatch(/^554 5\.6\.0 .*over the limit of 998/)
    const folded = Array.from({ length: 64 }, () => 'b'.repeat(990)).join('\r\n ')
    const sent = await relay(`From: ${FROM}\r\nTo: {to}\r\nX-Big: ${folded}\r\n`, { to: [`folded${n}@example.net`] })
    expect(sent.reply).toMatch(/^250 /)
    const { copies } = await outcome(sent.reply)
    expect(copies[0]!.raw).toContain(folded)
  })

  test('a header block over 256 KiB is refused with 554 5.6.0 and why', async () => {
    const fields = Array.from({ length: 300 }, (_, i) => `X-Pad-${i}: ${'p'.repeat(980)}`).join('\r\n')
    const { reply } = await relay(`From: ${FROM}\r\nTo: {to}\r\n${fields}\r\n`, { to: [`huge${n}@example.net`] })
    expect(reply).toMatch(/^554 5\.6\.0 .*header block is larger than 256 KiB/)
  })

  test('the session goes on after a refused message', async () => {
    const sent = await relay(`From: ${FROM}\r\nTo: {to}\r\n`, { to: [`after${n}@example.net`] })
    expect(sent.reply).toMatch(/^250 /)
  })
})
