import { describe, expect, test } from 'bun:test'
import libmime from 'libmime'
import { readHead, rewriteHead } from './raw-message.ts'
import { planHeaders } from './relay-headers.ts'

const FROM = 'From: Ada <ada@sender.example>\r\n'

/** The plan for a message's header block (given as UTF-8 text), and the header block it leads to. */
function plan(headers: string, smtpUtf8 = false) {
  const raw = Buffer.from(`${headers}\r\nbody\r\n`)
  const result = planHeaders(readHead(raw), smtpUtf8)
  const sent = Buffer.from(rewriteHead(raw, [], result.edits)).toString('latin1')
  return { ...result, sent: sent.slice(0, sent.indexOf('\r\n\r\n') + 2) }
}

const refusal = (headers: string, smtpUtf8 = false) => {
  try {
    plan(headers, smtpUtf8)
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message }
  }
  throw new Error('not refused')
}

describe('the relay’s header rules', () => {
  test.each([
    ['Bcc', 'Bcc: hidden@example.net\r\n'],
    ['BCC in capitals', 'BCC: hidden@example.net\r\n'],
    ['bcc in lower case, before its colon a space', 'bcc : hidden@example.net\r\n'],
    ['a folded Bcc', 'Bcc: first@example.net,\r\n\thidden@example.net\r\n'],
    ['an empty Bcc', 'Bcc:\r\n'],
    ['Resent-Bcc', 'Resent-Bcc: hidden@example.net\r\n'],
    ['Return-Path', 'Return-Path: <bounce@elsewhere.example>\r\n'],
    ['Content-Length', 'Content-Length: 12\r\n'],
    ['two Bcc fields', 'Bcc: hidden@example.net\r\nBcc: other@example.net\r\n'],
  ])('%s is taken out, the rest kept', (_, field) => {
    const { sent } = plan(`${FROM}${field}To: bob@example.net\r\n`)
    expect(sent).toBe(`${FROM}To: bob@example.net\r\n`)
  })

  test('a message with nothing to change needs no edit', () => {
    expect(plan(`${FROM}To: bob@example.net\r\nSubject: hi\r\n`).edits).toEqual([])
  })

  test('From with one address, a group of verified-looking addresses, an encoded display name: all read', () => {
    expect(plan(FROM).from.map((a) => a.address)).toEqual(['ada@sender.example'])
    expect(plan('From: =?UTF-8?Q?Ad=C3=A1?= <ada@sender.example>\r\n').fromValue).toBe('=?UTF-8?Q?Ad=C3=A1?= <ada@sender.example>')
    expect(plan('From: "ada@sender.example" <ada@sender.example>\r\n').from).toHaveLength(1)
    const group = plan('From: team: a@sender.example, b@sender.example;\r\nSender: a@sender.example\r\n')
    expect(group.from.map((a) => a.address)).toEqual(['a@sender.example', 'b@sender.example'])
  })

  test.each([
    ['no From', 'To: bob@example.net\r\n', 'VALIDATION_ERROR', /no From header/],
    ['an empty group', 'From: Undisclosed:;\r\n', 'SENDER_NOT_ALLOWED', /names no address/],
    ['an encoded word hiding an address', 'From: =?utf-8?Q?evil=40attacker.example?=\r\n', 'SENDER_NOT_ALLOWED', /is not an address/],
    ['a display name showing another address', 'From: "ada@sender.example" <evil@attacker.example>\r\n', 'SENDER_NOT_ALLOWED', /another address \(ada@sender\.example\)/],
    ['an encoded display name showing another address', 'From: =?utf-8?Q?boss=40sender.example?= <ada@sender.example>\r\n', 'SENDER_NOT_ALLOWED', /another address/],
    ['an address after the angle address', 'From: <ada@sender.example> evil@attacker.example\r\n', 'SENDER_NOT_ALLOWED', /another address/],
    ['a comment naming another address', 'From: ada@sender.example (evil@attacker.example)\r\n', 'SENDER_NOT_ALLOWED', /another address/],
    ['empty angle brackets', 'From: ada@sender.example <>\r\n', 'SENDER_NOT_ALLOWED', /empty angle brackets/],
    ['an invalid address', 'From: ada@@sender.example\r\n', 'SENDER_NOT_ALLOWED', /not a valid address/],
    ['several addresses and no Sender', 'From: a@sender.example, b@sender.example\r\n', 'SENDER_NOT_ALLOWED', /needs a Sender/],
    ['several addresses and a Sender naming another', 'From: a@sender.example, b@sender.example\r\nSender: c@sender.example\r\n', 'SENDER_NOT_ALLOWED', /needs a Sender/],
    ['two Sender fields', `${FROM}Sender: a@sender.example\r\nSender: b@sender.example\r\n`, 'SENDER_NOT_ALLOWED', /at most one Sender/],
    ['a Sender with two addresses', `${FROM}Sender: a@sender.example, b@sender.example\r\n`, 'SENDER_NOT_ALLOWED', /at most one Sender/],
    ['a Reply-To that is not an address', `${FROM}Reply-To: nobody\r\n`, 'SENDER_NOT_ALLOWED', /Reply-To/],
    ['a stray line in the header block', `${FROM}Bcc hidden@example.net\r\n`, 'MESSAGE_MALFORMED', /line 2 of the header block/],
    ['a header block that starts with a continuation', ` Bcc: hidden@example.net\r\n${FROM}`, 'MESSAGE_MALFORMED', /line 1 of the header block/],
  ])('refuses %s', (_, headers, code, message) => {
    const refused = refusal(headers)
    expect(refused.code).toBe(code)
    expect(refused.message).toMatch(message)
  })

  test('two From fields become one, with every address, at the first one’s place', () => {
    const result = plan('From: a@sender.example\r\nTo: bob@example.net\r\nFrom: b@sender.example\r\nSender: b@sender.example\r\n')
    expect(result.from.map((a) => a.address)).toEqual(['a@sender.example', 'b@sender.example'])
    expect(result.sent).toBe('From: a@sender.example, b@sender.example\r\nTo: bob@example.net\r\nSender: b@sender.example\r\n')
  })

  test('Sender, Resent-From and Resent-Sender are read for the caller to check; Reply-To may name any address', () => {
    const result = plan(`${FROM}Sender: ops@other.example\r\nResent-From: r@third.example\r\nResent-Sender: s@fourth.example\r\nReply-To: help@anywhere.example\r\nReply-To: x@y.example\r\n`)
    expect(result.sender?.address).toBe('ops@other.example')
    expect(result.resent.map((a) => a.address)).toEqual(['r@third.example', 's@fourth.example'])
    expect(result.replyTo).toEqual(['help@anywhere.example', 'x@y.example'])
    expect(result.sent).toContain('Reply-To: help@anywhere.example, x@y.example\r\n')
    expect(result.sent.match(/Reply-To/g)).toHaveLength(1)
  })

  test('without SMTPUTF8, 8-bit text and display names are sent as encoded words and IDN domains in punycode', () => {
    const result = plan('From: Adá Lovelace <ada@sender.example>\r\nSubject: Grüße aus Köln\r\nTo: "Müller, Hans" <hans@bücher.example>\r\nX-Note: ✓\r\n')
    expect(result.sent).not.toMatch(/[\x80-\xff]/)
    const head = readHead(Buffer.from(`${result.sent}\r\n`, 'latin1')).fields
    const decoded = (name: string) => libmime.decodeWords(head.find((f) => f.name === name)!.value)
    expect(decoded('subject')).toBe('Grüße aus Köln')
    expect(decoded('from')).toBe('Adá Lovelace <ada@sender.example>')
    expect(decoded('to')).toBe('Müller, Hans <hans@xn--bcher-kva.example>')
    expect(decoded('x-note')).toBe('✓')
    expect(result.fromValue).toBe('Adá Lovelace <ada@sender.example>')
  })

  test.each([
    ['a non-ASCII local part', `${FROM}To: jürgen@example.net\r\n`, 'SMTPUTF8_REQUIRED', /needs SMTPUTF8/],
    ['8-bit in a structured field', `${FROM}Message-ID: <grüße@sender.example>\r\n`, 'SMTPUTF8_REQUIRED', /Message-ID header has non-ASCII/],
  ])('without SMTPUTF8, refuses %s', (_, headers, code, message) => {
    const refused = refusal(headers)
    expect(refused.code).toBe(code)
    expect(refused.message).toMatch(message)
  })

  test('with SMTPUTF8, UTF-8 headers go as they are', () => {
    const headers = `From: Adá <ada@sender.example>\r\nTo: jürgen@example.net\r\nSubject: Grüße\r\n`
    const result = plan(headers, true)
    expect(result.edits).toEqual([])
    expect(result.fromValue).toBe('Adá <ada@sender.example>')
  })

  test('8-bit bytes that are not UTF-8 are refused, with SMTPUTF8 or without', () => {
    const raw = Buffer.concat([Buffer.from(FROM), Buffer.from('Subject: Gr\xfc\xdfe\r\n\r\nbody', 'latin1')])
    for (const smtpUtf8 of [false, true]) expect(() => planHeaders(readHead(raw), smtpUtf8)).toThrow(/not UTF-8/)
  })
})

describe('the fields that show the app’s own network', () => {
  const head = `${FROM}X-Originating-IP: [10.0.3.7]\r\nReceived: from app (app [10.1.2.3]) by relay\r\nSubject: hi\r\n`
  const sent = (dropOrigin: boolean) => {
    const raw = Buffer.from(`${head}\r\nbody\r\n`)
    const out = Buffer.from(rewriteHead(raw, [], planHeaders(readHead(raw), false, dropOrigin).edits)).toString('latin1')
    return out.slice(0, out.indexOf('\r\n\r\n') + 2)
  }

  test('are dropped when the setting says so', () => {
    expect(sent(true)).toBe(`${FROM}Subject: hi\r\n`)
  })

  test('are kept when it does not', () => {
    expect(sent(false)).toBe(head)
  })
})
