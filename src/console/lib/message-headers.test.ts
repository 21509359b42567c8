import { describe, expect, test } from 'bun:test'
import { decodeEncodedWords, parseHeaders, senderName } from './message-headers.ts'

describe("a message's headers for reading", () => {
  test('fields in order, folded lines joined, the body left out', () => {
    const raw = 'DKIM-Signature: v=1; a=rsa-sha256;\r\n d=example.com; s=s1;\r\n\tb=abc\r\nFrom: Ada <ada@example.com>\r\nSubject: Hi\r\n\r\nBody: not a header\r\n'
    expect(parseHeaders(raw)).toEqual([
      { name: 'DKIM-Signature', value: 'v=1; a=rsa-sha256; d=example.com; s=s1; b=abc' },
      { name: 'From', value: 'Ada <ada@example.com>' },
      { name: 'Subject', value: 'Hi' },
    ])
  })

  test('bare LF line ends, and a stray line kept without a name', () => {
    expect(parseHeaders('A: 1\nstray line\nB: 2\n\nbody')).toEqual([
      { name: 'A', value: '1' },
      { name: '', value: 'stray line' },
      { name: 'B', value: '2' },
    ])
  })

  test('encoded words are decoded, B and Q, and the space between two of them dropped', () => {
    expect(decodeEncodedWords('=?UTF-8?B?R3LDvMOfZQ==?= =?utf-8?Q?_aus_K=C3=B6ln?=')).toBe('Grüße aus Köln')
    expect(decodeEncodedWords('Re: =?utf-8?q?caf=C3=A9?= and more')).toBe('Re: café and more')
  })

  test('an unknown charset or broken base64 leaves the word as written', () => {
    expect(decodeEncodedWords('=?x-unknown?B?SGk=?=')).toBe('=?x-unknown?B?SGk=?=')
    expect(decodeEncodedWords('=?utf-8?B?###?=')).toBe('=?utf-8?B?###?=')
  })
})

describe('the sender an inbox lists', () => {
  test('the display name, unquoted, else the address', () => {
    expect(senderName('"Shop" <shop@example.com>')).toBe('Shop')
    expect(senderName('Ada Lovelace <ada@example.com>')).toBe('Ada Lovelace')
    expect(senderName('"Smith, \\"J\\"" <j@example.com>')).toBe('Smith, "J"')
    expect(senderName('<bare@example.com>')).toBe('bare@example.com')
    expect(senderName(' plain@example.com ')).toBe('plain@example.com')
  })
})
