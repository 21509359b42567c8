import { describe, expect, test } from 'bun:test'
import { hostnameProblem } from './hostname.ts'

describe('hostnameProblem', () => {
  test.each(['mail.example.com', 'mx1.eu.example.co.uk', 'mail.example.test', 'MAIL.Example.COM', 'mail.example.com.'])('%s is fully qualified', (name) => {
    expect(hostnameProblem(name)).toBeUndefined()
  })

  test.each(['mailbox', 'a1b2c3d4e5f6', 'localhost'])('%s is a bare machine name', (name) => {
    expect(hostnameProblem(name)).toStartWith(`MAILSTEAD_HOSTNAME is "${name}", not a fully qualified name`)
  })

  test.each([
    ['box.local', '.local'],
    ['mail.localdomain', '.localdomain'],
    ['srv.corp.internal', '.internal'],
    ['nas.home.arpa', '.home.arpa'],
    ['my.localhost', '.localhost'],
  ])('%s is under %s, which no receiver can look up', (name, suffix) => {
    expect(hostnameProblem(name)).toContain(`a name under ${suffix} that no receiver can look up`)
  })

  test('says how to mend it', () => {
    expect(hostnameProblem('box')).toContain('set MAILSTEAD_HOSTNAME to a name such as mail.example.com')
  })
})
