import { describe, expect, test } from 'bun:test'
import { checkHeaders } from './checks.ts'

describe('checkHeaders', () => {
  test('a header value is one line of text, like a subject', () => {
    expect(checkHeaders({ 'X-Campaign': 'Spring 🌷' })).toEqual({ 'X-Campaign': 'Spring 🌷' })
    for (const value of ['a\r\nBcc: x@example.net', 'a\u0000', 'a\u000bb', 'a\udc00']) {
      expect(() => checkHeaders({ 'X-Campaign': value })).toThrow('headers.X-Campaign: must be one line')
    }
  })
})
