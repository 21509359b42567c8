import { describe, expect, test } from 'bun:test'
import { headerValue, parseHeaders, prependHeaders, splitHead } from './raw-message.ts'

describe('raw messages', () => {
  test('the header block ends at the first blank line, CRLF or bare LF', () => {
    expect(splitHead(Buffer.from('A: 1\r\nB: 2\r\n\r\nbody\r\n'))).toEqual({ head: 'A: 1\r\nB: 2', bodyStart: 14 })
    expect(splitHead(Buffer.from('A: 1\nB: 2\n\nbody\n'))).toEqual({ head: 'A: 1\nB: 2', bodyStart: 11 })
    expect(splitHead(Buffer.from('A: 1\r\n'))).toEqual({ head: 'A: 1\r\n', bodyStart: 6 })
  })

  test('headers are unfolded, names lower-cased', () => {
    const headers = parseHeaders('From: Ada\r\n <ada@example.com>\r\nSubject:  Hi  \r\nX-Empty:\r\nnot a header')
    expect(headers).toEqual([
      { name: 'from', value: 'Ada <ada@example.com>' },
      { name: 'subject', value: 'Hi' },
      { name: 'x-empty', value: '' },
    ])
    expect(headerValue(headers, 'subject')).toBe('Hi')
    expect(headerValue(headers, 'to')).toBeUndefined()
  })

  test('8-bit header values are read as UTF-8', () => {
    const raw = Buffer.from('Subject: Grüße aus Köln\r\n\r\n')
    expect(headerValue(parseHeaders(splitHead(raw).head), 'subject')).toBe('Grüße aus Köln')
  })

  test('headers are added at the top, the rest kept byte for byte', () => {
    const raw = Buffer.from('Subject: x\r\n\r\nbody')
    expect(Buffer.from(prependHeaders(raw, ['Date: now', 'Message-ID: <a@b>'])).toString()).toBe('Date: now\r\nMessage-ID: <a@b>\r\nSubject: x\r\n\r\nbody')
    expect(prependHeaders(raw, [])).toBe(raw)
  })
})
