import { describe, expect, test } from 'bun:test'
import { generateDkimKeys } from './dkim-keys.ts'
import { checkDomainName, subdomainOf } from './domain-name.ts'
import { nextSelector } from './selector.ts'

describe('checkDomainName', () => {
  test.each([
    ['Example.COM', 'example.com'],
    ['mail.example.com', 'mail.example.com'],
    ['bücher.de', 'xn--bcher-kva.de'],
  ])('%s is stored as %s', (input, stored) => {
    expect(checkDomainName(input)).toBe(stored)
  })

  test.each([
    ['exa mple.com', 'spaces'],
    ['example.com.', 'dot'],
    [`${'a'.repeat(64)}.com`, 'host name'],
    ['192.168.1.1', 'IP address'],
    ['localhost', 'at least one dot'],
    ['mail.localhost', 'localhost'],
    ['', 'host name'],
    ['-bad.example.com', 'host name'],
  ])('%j is refused (%s)', (input, why) => {
    expect(() => checkDomainName(input)).toThrow(why)
  })
})

describe('subdomainOf', () => {
  test.each([
    ['example.com', null],
    ['mail.example.com', 'mail'],
    ['a.b.example.co.uk', 'a.b'],
    ['example.co.uk', null],
  ])('%s -> %s', (name, subdomain) => {
    expect(subdomainOf(name)).toBe(subdomain)
  })
})

describe('nextSelector', () => {
  const november = Date.parse('2026-11-15T00:00:00Z')
  test('names the month and takes the first free letter', () => {
    expect(nextSelector(new Set(), november)).toBe('ms202611a')
    expect(nextSelector(new Set(['ms202611a', 'ms202611b']), november)).toBe('ms202611c')
  })

  test('goes on past z', () => {
    const taken = new Set('abcdefghijklmnopqrstuvwxyz'.split('').map((l) => `ms202611${l}`))
    expect(nextSelector(taken, november)).toBe('ms202611aa')
  })
})

describe('generateDkimKeys', () => {
  test('makes an RSA-2048 key and an Ed25519 key in the forms DKIM records use', async () => {
    const { rsa, ed25519 } = await generateDkimKeys()
    expect(Buffer.from(rsa.publicKey, 'base64').length).toBe(294)
    expect(rsa.privateKeyPem).toStartWith('-----BEGIN PRIVATE KEY-----')
    expect(Buffer.from(ed25519.publicKey, 'base64').length).toBe(32)
    expect(ed25519.privateKeyPem).toStartWith('-----BEGIN PRIVATE KEY-----')
  })
})
