import { describe, expect, test } from 'bun:test'
import { checkAddress } from './address.ts'

describe('checkAddress', () => {
  test.each([
    ['jane@example.com', 'jane@example.com'],
    ['Jane.Doe+news@Example.COM', 'jane.doe+news@example.com'],
    ["o'brien@example.ie", "o'brien@example.ie"],
    ['"john doe"@example.com', '"john doe"@example.com'],
    ['jane@bücher.de', 'jane@xn--bcher-kva.de'],
    ['ü@example.com', 'ü@example.com'],
    ['📰@example.com', '📰@example.com'],
    ['a@sub.domain.example.co.uk', 'a@sub.domain.example.co.uk'],
    [`${'a'.repeat(64)}@example.com`, `${'a'.repeat(64)}@example.com`],
  ])('accepts %s, matched as %s', (input, key) => {
    const result = checkAddress(input)
    expect(result.ok).toBe(true)
    if (result.ok) {
      expect(result.value.address).toBe(input)
      expect(result.value.key).toBe(key)
    }
  })

  test.each([
    ['', 'name@domain'],
    ['jane', 'name@domain'],
    ['@example.com', 'name@domain'],
    ['jane@', 'name@domain'],
    ['jane doe@example.com', 'spaces'],
    [' jane@example.com', 'spaces'],
    ['jane@example.com\n', 'control'],
    ['jane\u0000@example.com', 'control'],
    ['Jane <jane@example.com>', 'spaces'],
    ['jane(comment)@example.com', 'not allowed'],
    ['jane..doe@example.com', 'not allowed'],
    ['.jane@example.com', 'not allowed'],
    [`${'a'.repeat(65)}@example.com`, '64'],
    [`a@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(60)}.example.com`, '254'],
    ['jane@localhost', 'at least one dot'],
    ['jane@example', 'at least one dot'],
    ['jane@-example.com', 'host name'],
    ['jane@example-.com', 'host name'],
    ['jane@exa_mple.com', 'host name'],
    ['jane@example..com', 'host name'],
    [`jane@${'a'.repeat(64)}.com`, 'host name'],
    ['jane@192.168.1.1', 'IP address'],
    ['jane@[192.168.1.1]', 'literals'],
    ['ja\ud800ne@example.com', 'lone UTF-16 surrogate'],
    ['jane\udc00@example.com', 'lone UTF-16 surrogate'],
    ['"ja\ud800ne"@example.com', 'lone UTF-16 surrogate'],
    ['jane@exa\udfffmple.com', 'lone UTF-16 surrogate'],
    ['\udc00\ud800@example.com', 'lone UTF-16 surrogate'],
  ])('refuses %j (%s)', (input, why) => {
    const result = checkAddress(input)
    expect(result.ok).toBe(false)
    if (!result.ok) expect(result.reason).toContain(why)
  })
})
