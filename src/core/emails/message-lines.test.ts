import { describe, expect, test } from 'bun:test'
import { lineProblem } from './message-lines.ts'

const problem = (text: string) => lineProblem(Buffer.from(text, 'latin1'))

describe('the lines of a relayed message', () => {
  test.each([
    ['CRLF line ends', 'Subject: x\r\n\r\nbody\r\n'],
    ['bare LF line ends', 'Subject: x\n\nbody\n'],
    ['a last line without its line end', 'Subject: x\r\n\r\nbody'],
    ['a line of exactly 998 octets', `Subject: x\r\n\r\n${'a'.repeat(998)}\r\n`],
    ['8-bit bytes', 'Subject: x\r\n\r\nGr\xfc\xdfe\r\n'],
  ])('%s pass', (_, text) => {
    expect(problem(text)).toBeUndefined()
  })

  test.each([
    ['a NUL byte in the body', 'Subject: x\r\n\r\nab\x00c\r\n', /NUL byte \(at octet 17\)/],
    ['a NUL byte in a header', 'Subject: x\x00\r\n\r\nbody', /NUL byte/],
    ['a bare CR in a header', 'From: a@example.com\rBcc: b@example.net\r\n\r\nbody', /line 1 has a CR/],
    ['CR-only line ends', 'From: a@example.com\rTo: b@example.net\r\rbody\r', /line 1 has a CR/],
    ['a bare CR before a dot', 'Subject: x\r\n\r\nbody\r.\r\nmore\r\n', /line 3 has a CR/],
    ['a CR at the very end', 'Subject: x\r\n\r\nbody\r', /line 3 has a CR/],
    ['a line of 999 octets', `Subject: x\r\n\r\nok\r\n${'a'.repeat(999)}\r\n`, /line 4 is 999 octets long/],
    ['a long header line', `Subject: ${'a'.repeat(1000)}\r\n\r\nbody`, /line 1 is 1009 octets/],
    ['a long last line without its line end', `Subject: x\n\n${'a'.repeat(2000)}`, /line 3 is 2000 octets/],
  ])('%s is refused with where it is', (_, text, reason) => {
    expect(problem(text)).toMatch(reason)
  })

  test('a long message of short LF-only lines is read in linear time', () => {
    const big = Buffer.from('Subject: x\n\n' + 'a'.repeat(70).concat('\n').repeat(150_000) + 'end\r')
    const started = performance.now()
    expect(lineProblem(big)).toMatch(/line 150003 has a CR/)
    expect(performance.now() - started).toBeLessThan(2000)
  })
})
