import { describe, expect, test } from 'bun:test'
import { checkSubject } from './subject.ts'

describe('checkSubject', () => {
  test.each(['Hello', 'Hi {{name}}, 50% off', 'Tabs\tare whitespace', 'Ünïcode 📰', 'x'.repeat(998)])('accepts %j', (subject) => {
    expect(checkSubject(subject)).toBe(subject)
  })

  test.each([
    ['a line feed', 'Hi\nBcc: thief@example.net', 'one line'],
    ['a carriage return alone', 'Hi\rthere', 'one line'],
    ['a NUL', 'Hi\u0000', 'one line'],
    ['another control character', 'Hi\u001b[31m', 'one line'],
    ['a C1 control', 'Hi\u0085there', 'one line'],
    ['a Unicode line separator', 'Hi\u2028there', 'one line'],
    ['a lone surrogate', 'Hi \ud800', 'well-formed'],
    ['nothing but spaces', '   ', 'empty'],
    ['999 characters', 'x'.repeat(999), '998'],
  ])('refuses %s, naming the field it was given', (_, subject, why) => {
    expect(() => checkSubject(subject, 'steps[0].config.subject')).toThrow(`steps[0].config.subject: `)
    expect(() => checkSubject(subject)).toThrow(why)
  })
})
