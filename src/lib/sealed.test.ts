import { describe, expect, test } from 'bun:test'
import { seal, unseal } from './sealed.ts'

const SECRET = 'a-server-secret-of-enough-length-123'

describe('sealed values', () => {
  test('open with the same secret and purpose', () => {
    const sealed = seal(SECRET, 'dkim', 'private key')
    expect(sealed).not.toContain('private key')
    expect(unseal(SECRET, 'dkim', sealed)).toBe('private key')
  })

  test('two seals of the same text differ', () => {
    expect(seal(SECRET, 'dkim', 'x')).not.toBe(seal(SECRET, 'dkim', 'x'))
  })

  test('do not open with another secret or purpose, or when altered', () => {
    const sealed = seal(SECRET, 'dkim', 'private key')
    expect(() => unseal('another-secret-of-enough-length-4567', 'dkim', sealed)).toThrow()
    expect(() => unseal(SECRET, 'other', sealed)).toThrow()
    const altered = sealed.slice(0, -4) + (sealed.endsWith('AAAA') ? 'BBBB' : 'AAAA')
    expect(() => unseal(SECRET, 'dkim', altered)).toThrow()
  })
})
