import { describe, expect, test } from 'bun:test'
import { HEAD_LIMIT, headerValue, readHead, rewriteHead } from './raw-message.ts'

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1')

describe('raw messages', () => {
  test('the header block ends at the first blank line, CRLF or bare LF', () => {
    expect(readHead(Buffer.from('A: 1\r\nB: 2\r\n\r\nbody\r\n'))).toMatchObject({ end: 12, bodyStart: 14, complete: true })
    expect(readHead(Buffer.from('A: 1\nB: 2\n\nbody\n'))).toMatchObject({ end: 10, bodyStart: 11 })
    expect(readHead(Buffer.from('A: 1\r\n'))).toMatchObject({ end: 6, bodyStart: 6, fields: [{ name: 'a', start: 0, end: 6 }] })
  })

  test('fields are unfolded, names lower-cased, and each knows its bytes', () => {
    const head = readHead(Buffer.from('From: Ada\r\n <ada@example.com>\r\nSubject:  Hi  \r\nX-Empty:\r\nBcc : x@example.com\r\n\r\n'))
    expect(head.fields.map(({ name, label, value, start, end }) => ({ name, label, value, start, end }))).toEqual([
      { name: 'from', label: 'From', value: 'Ada <ada@example.com>', start: 0, end: 31 },
      { name: 'subject', label: 'Subject', value: 'Hi', start: 31, end: 47 },
      { name: 'x-empty', label: 'X-Empty', value: '', start: 47, end: 57 },
      { name: 'bcc', label: 'Bcc', value: 'x@example.com', start: 57, end: 78 },
    ])
    expect(head.strayLine).toBeUndefined()
    expect(headerValue(head.fields, 'subject')).toBe('Hi')
    expect(headerValue(head.fields, 'to')).toBeUndefined()
  })

  test('a line that is neither a field nor a continuation is found, as is a continuation with nothing to continue', () => {
    expect(readHead(Buffer.from('Subject: x\r\nBcc hidden@example.com\r\n\r\n')).strayLine).toBe(2)
    expect(readHead(Buffer.from(' Bcc: hidden@example.com\r\nSubject: x\r\n\r\n')).strayLine).toBe(1)
    expect(readHead(Buffer.from('Subject: x\r\nBad Name: y\r\n\r\n')).strayLine).toBe(2)
  })

  test('a header block with no end within the limit is incomplete', () => {
    const long = Buffer.from(`X-Pad: ${'a'.repeat(900)}\r\n`.repeat(Math.ceil(HEAD_LIMIT / 900)) + 'Bcc: hidden@example.com\r\n\r\nbody')
    expect(readHead(long).complete).toBe(false)
  })

  test('8-bit header values are read as UTF-8', () => {
    expect(headerValue(readHead(Buffer.from('Subject: Grüße aus Köln\r\n\r\n')).fields, 'subject')).toBe('Grüße aus Köln')
  })

  test('headers are added at the top, fields taken out or replaced where they stand, the rest kept byte for byte', () => {
    const raw = Buffer.from('Subject: x\r\nBcc: a@b.example,\r\n c@d.example\r\nTo: t@example.com\r\n\r\nbody')
    const [subject, bcc] = readHead(raw).fields
    expect(text(rewriteHead(raw, ['Date: now', 'Message-ID: <a@b>']))).toBe('Date: now\r\nMessage-ID: <a@b>\r\n' + text(raw))
    expect(text(rewriteHead(raw, [], [{ field: bcc! }]))).toBe('Subject: x\r\nTo: t@example.com\r\n\r\nbody')
    expect(text(rewriteHead(raw, [], [{ field: bcc! }, { field: subject!, line: 'Subject: y' }]))).toBe('Subject: y\r\nTo: t@example.com\r\n\r\nbody')
    expect(rewriteHead(raw, [])).toBe(raw)
  })

  test('the last field of a block can be taken out without touching the blank line or the body', () => {
    const raw = Buffer.from('Subject: x\nBcc: a@b.example\n\nbody')
    const bcc = readHead(raw).fields[1]!
    expect(text(rewriteHead(raw, [], [{ field: bcc }]))).toBe('Subject: x\n\nbody')
  })
})
